//! What polyrust says: the text the printer passes show (`print<polyrust-*>`: stable,
//! line-oriented formats that lit tests check with FileCheck), and the remarks the pass
//! makes about each region (`notes`, said in the order the stages made them, and
//! `outcome`, what became of the region).

pub mod loops;
pub mod notes;
pub mod outcome;
pub mod regions;
pub mod roofline;

pub use notes::{left_unchanged, Notes};
