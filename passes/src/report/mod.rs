//! Text the printer passes show (`print<polyrust-*>`): stable, line-oriented formats
//! that lit tests check with FileCheck.

pub mod loops;
pub mod regions;
