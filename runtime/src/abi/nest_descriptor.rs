//! `struct polyrust_rt_nest` and `struct polyrust_rt_site` (the ABI of
//! `/work/shared-abi/accesses-abi.md`, in `runtime/include/polyrust_rt.h`), and reading
//! them defensively once per nest: a descriptor whose fields break the ABI (another
//! version, too many sites, a site deeper than its nest, a chain of enclosing loops
//! that does not match the depths) is refused with a reason, never trusted.
//!
//! Version 2 adds the compiler's facts about the nest's loops (`num_facts` where
//! version 1 had `reserved`, and the `facts` pointer after it): see
//! [`crate::profile::static_model`]. Version 1 descriptors are still read (no facts).

use std::ffi::c_char;

use super::descriptor::c_text;
use crate::accesses::{NestIdentity, SiteInfo};
use crate::profile::nest::{SiteKind, MAX_DEPTH, MAX_SITES};
use crate::profile::static_model::{FactKind, LoopFact, MAX_FACTS};

/// The newest nest descriptor layout this runtime knows (it also reads version 1).
pub const NEST_ABI_VERSION: u32 = 2;
const FACT_REDUCTION: u32 = 0;
const FACT_RECURRENCE: u32 = 1;
const FACT_UNRECORDED_CALL: u32 = 2;
const FACT_MEMORY_REDUCTION: u32 = 3;
const FACT_DATA_EXIT: u32 = 4;
const SITE_LOAD: u32 = 0;
const SITE_STORE: u32 = 1;
const SITE_LOOP: u32 = 2;
const NO_LOOP: u32 = u32::MAX;

/// C: `struct polyrust_rt_site`. 64-bit: six `uint32_t`, one pointer, 32 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SiteDescriptor {
    pub kind: u32,
    pub depth: u32,
    pub size: u32,
    pub line: u32,
    pub column: u32,
    pub loop_site: u32,
    pub name: *const c_char,
}

/// C: `struct polyrust_rt_fact`. 64-bit: four `uint32_t`, two pointers, 32 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FactDescriptor {
    pub kind: u32,
    pub loop_site: u32,
    pub load: u32,
    pub store: u32,
    pub operation: *const c_char,
    pub name: *const c_char,
}

/// C: `struct polyrust_rt_nest` up to `num_facts`, the part every version has. 64-bit:
/// four `uint32_t`, six pointers, two `uint32_t`, 72 bytes.
#[repr(C)]
#[derive(Debug)]
pub struct NestDescriptor {
    pub abi_version: u32,
    pub num_sites: u32,
    pub max_depth: u32,
    pub line: u32,
    pub id: *const c_char,
    pub function: *const c_char,
    pub file: *const c_char,
    pub module_hash: *const c_char,
    pub sites: *const SiteDescriptor,
    pub default_path: *const c_char,
    pub modelled: u32,
    /// Version 2; `reserved` (0) in version 1.
    pub num_facts: u32,
}

/// C: `struct polyrust_rt_nest` of version 2, 80 bytes.
#[repr(C)]
#[derive(Debug)]
pub struct NestDescriptorV2 {
    pub base: NestDescriptor,
    pub facts: *const FactDescriptor,
}

impl NestDescriptor {
    /// Whether `site` is a load or a store (not a loop header, not out of range).
    ///
    /// # Safety
    /// `sites` is NULL or points to `num_sites` site descriptors.
    pub(crate) unsafe fn is_memory_site(&self, site: u32) -> bool {
        site < self.num_sites
            && !self.sites.is_null()
            && unsafe { (*self.sites.add(site as usize)).kind } != SITE_LOOP
    }

    /// Who the nest is and its sites, or why it cannot be recorded.
    ///
    /// # Safety
    /// Every pointer of the descriptor is NULL or valid as its field says; `sites`
    /// points to `num_sites` site descriptors.
    pub(crate) unsafe fn identity(&self) -> Result<NestIdentity, String> {
        if !(1..=NEST_ABI_VERSION).contains(&self.abi_version) {
            return Err(format!(
                "descriptor version {} (this runtime knows 1 to {NEST_ABI_VERSION})",
                self.abi_version
            ));
        }
        let id = c_text(self.id).ok_or("no id")?;
        let (num_sites, max_depth) = (self.num_sites as usize, self.max_depth as usize);
        if num_sites > MAX_SITES || max_depth > MAX_DEPTH {
            return Err(format!(
                "{num_sites} sites of depth up to {max_depth} (at most {MAX_SITES} and {MAX_DEPTH})"
            ));
        }
        if num_sites > 0 && self.sites.is_null() {
            return Err("sites is NULL".into());
        }
        let raw: &[SiteDescriptor] = if num_sites == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.sites, num_sites)
        };
        let mut sites = Vec::with_capacity(num_sites);
        for (index, site) in raw.iter().enumerate() {
            let kind = match site.kind {
                SITE_LOAD => SiteKind::Load,
                SITE_STORE => SiteKind::Store,
                SITE_LOOP => SiteKind::Loop,
                other => return Err(format!("site {index} has kind {other}")),
            };
            if site.depth > self.max_depth {
                return Err(format!(
                    "site {index} has depth {}, more than the nest's {max_depth}",
                    site.depth
                ));
            }
            sites.push(SiteInfo {
                kind,
                depth: site.depth,
                size: site.size,
                line: site.line,
                column: site.column,
                parent_loop: (site.loop_site != NO_LOOP).then_some(site.loop_site),
                name: c_text(site.name).unwrap_or_default(),
            });
        }
        check_loop_chains(&sites)?;
        let facts = self.facts(&sites)?;
        Ok(NestIdentity {
            id,
            function: c_text(self.function).unwrap_or_default(),
            file: c_text(self.file).unwrap_or_default(),
            line: self.line,
            module_hash: c_text(self.module_hash).unwrap_or_default(),
            modelled: self.modelled == 1,
            thread: 0,
            sites,
            facts,
        })
    }

    /// The facts of a version 2 descriptor (none in version 1), each about a loop site.
    ///
    /// # Safety
    /// As [`NestDescriptor::identity`]; a version 2 descriptor is a [`NestDescriptorV2`]
    /// whose `facts` points to `num_facts` fact descriptors.
    unsafe fn facts(&self, sites: &[SiteInfo]) -> Result<Vec<LoopFact>, String> {
        if self.abi_version < 2 || self.num_facts == 0 {
            return Ok(Vec::new());
        }
        let count = self.num_facts as usize;
        if count > MAX_FACTS {
            return Err(format!("{count} facts, more than {MAX_FACTS}"));
        }
        let full = &*(self as *const NestDescriptor).cast::<NestDescriptorV2>();
        if full.facts.is_null() {
            return Err("facts is NULL".into());
        }
        let raw = std::slice::from_raw_parts(full.facts, count);
        raw.iter()
            .enumerate()
            .map(|(index, fact)| {
                let kind = match fact.kind {
                    FACT_REDUCTION => FactKind::Reduction,
                    FACT_RECURRENCE => FactKind::Recurrence,
                    FACT_UNRECORDED_CALL => FactKind::UnrecordedCall,
                    FACT_MEMORY_REDUCTION => FactKind::MemoryReduction,
                    FACT_DATA_EXIT => FactKind::DataExit,
                    other => return Err(format!("fact {index} has kind {other}")),
                };
                let is_loop = sites
                    .get(fact.loop_site as usize)
                    .is_some_and(|site| site.kind == SiteKind::Loop);
                if !is_loop {
                    return Err(format!(
                        "fact {index} is about site {}, not a loop",
                        fact.loop_site
                    ));
                }
                let update = (kind == FactKind::MemoryReduction)
                    .then(|| update_sites(sites, fact))
                    .transpose()
                    .map_err(|problem| format!("fact {index}: {problem}"))?;
                Ok(LoopFact {
                    loop_site: fact.loop_site,
                    kind,
                    update,
                    operation: c_text(fact.operation).unwrap_or_default(),
                    name: c_text(fact.name).unwrap_or_default(),
                })
            })
            .collect()
    }

    /// The profile path compiled in, if any (an empty one counts as none).
    ///
    /// # Safety
    /// `default_path` is NULL or a NUL-terminated string.
    pub(crate) unsafe fn default_path(&self) -> Option<String> {
        c_text(self.default_path).filter(|path| !path.is_empty())
    }
}

/// A memory reduction's (load, store) sites, which must be a load and a store.
fn update_sites(sites: &[SiteInfo], fact: &FactDescriptor) -> Result<(u32, u32), String> {
    let kind_of = |site: u32| sites.get(site as usize).map(|s| s.kind);
    if kind_of(fact.load) != Some(SiteKind::Load) || kind_of(fact.store) != Some(SiteKind::Store) {
        return Err(format!(
            "sites {} and {} are not a load and a store",
            fact.load, fact.store
        ));
    }
    Ok((fact.load, fact.store))
}

/// Each site's chain of enclosing loop headers must have exactly its depth, with
/// depths counting down to 1: the folded IV positions and the loops of the report are
/// read off these chains.
fn check_loop_chains(sites: &[SiteInfo]) -> Result<(), String> {
    for (index, site) in sites.iter().enumerate() {
        let mut expected = site.depth;
        let mut next = if site.kind == SiteKind::Loop {
            Some(index as u32)
        } else {
            site.parent_loop
        };
        while let Some(loop_index) = next {
            let Some(header) = sites.get(loop_index as usize) else {
                return Err(format!("site {index}: loop {loop_index} is not a site"));
            };
            if header.kind != SiteKind::Loop || header.depth != expected || expected == 0 {
                return Err(format!(
                    "site {index}: its enclosing loops do not match its depth {}",
                    site.depth
                ));
            }
            expected -= 1;
            next = header.parent_loop;
        }
        if expected != 0 {
            return Err(format!(
                "site {index} has depth {} but {} enclosing loops",
                site.depth,
                site.depth - expected
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<SiteDescriptor>(), 32);
        assert_eq!(offset_of!(SiteDescriptor, loop_site), 20);
        assert_eq!(offset_of!(SiteDescriptor, name), 24);
        assert_eq!(size_of::<NestDescriptor>(), 72);
        assert_eq!(offset_of!(NestDescriptor, id), 16);
        assert_eq!(offset_of!(NestDescriptor, sites), 48);
        assert_eq!(offset_of!(NestDescriptor, default_path), 56);
        assert_eq!(offset_of!(NestDescriptor, modelled), 64);
        assert_eq!(offset_of!(NestDescriptor, num_facts), 68);
        assert_eq!(size_of::<FactDescriptor>(), 32);
        assert_eq!(offset_of!(FactDescriptor, name), 24);
        assert_eq!(size_of::<NestDescriptorV2>(), 80);
        assert_eq!(offset_of!(NestDescriptorV2, facts), 72);
    }

    fn descriptor(sites: *const SiteDescriptor, num_sites: u32) -> NestDescriptor {
        NestDescriptor {
            abi_version: NEST_ABI_VERSION,
            num_sites,
            max_depth: 1,
            line: 0,
            id: c"n:1:ab".as_ptr(),
            function: std::ptr::null(),
            file: std::ptr::null(),
            module_hash: std::ptr::null(),
            sites,
            default_path: std::ptr::null(),
            modelled: 0,
            num_facts: 0,
        }
    }

    /// A loop and a load of `a` in it.
    fn loop_and_load() -> [SiteDescriptor; 2] {
        [
            SiteDescriptor {
                kind: SITE_LOOP,
                depth: 1,
                size: 0,
                line: 0,
                column: 0,
                loop_site: NO_LOOP,
                name: std::ptr::null(),
            },
            SiteDescriptor {
                kind: SITE_LOAD,
                depth: 1,
                size: 4,
                line: 0,
                column: 0,
                loop_site: 0,
                name: c"a".as_ptr(),
            },
        ]
    }

    #[test]
    fn descriptors_that_break_the_abi_are_refused_with_a_reason() {
        let sites = loop_and_load();
        // SAFETY: every pointer is NULL or points to live data above.
        let identity = unsafe { descriptor(sites.as_ptr(), 2).identity() }.unwrap();
        assert_eq!(
            (
                identity.sites[0].name.as_str(),
                identity.sites[1].name.as_str()
            ),
            ("", "a")
        );
        let refuse = |nest: NestDescriptor| unsafe { nest.identity() }.unwrap_err();
        assert_eq!(refuse(descriptor(std::ptr::null(), 2)), "sites is NULL");
        let mut other_version = descriptor(sites.as_ptr(), 2);
        other_version.abi_version = 3;
        assert!(refuse(other_version).contains("descriptor version 3"));
        let mut no_id = descriptor(sites.as_ptr(), 2);
        no_id.id = std::ptr::null();
        assert_eq!(refuse(no_id), "no id");
        let mut too_many = descriptor(sites.as_ptr(), 2);
        too_many.num_sites = 5000;
        assert!(refuse(too_many).contains("5000 sites"));
        let mut bad_kind = sites;
        bad_kind[1].kind = 7;
        assert!(refuse(descriptor(bad_kind.as_ptr(), 2)).contains("site 1 has kind 7"));
    }

    #[test]
    fn a_version_2_descriptor_brings_its_facts_about_loop_sites_only() {
        let sites = loop_and_load();
        let mut facts = [
            FactDescriptor {
                kind: FACT_REDUCTION,
                loop_site: 0,
                load: NO_LOOP,
                store: NO_LOOP,
                operation: c"+".as_ptr(),
                name: c"sum".as_ptr(),
            },
            FactDescriptor {
                kind: FACT_UNRECORDED_CALL,
                loop_site: 0,
                load: NO_LOOP,
                store: NO_LOOP,
                operation: std::ptr::null(),
                name: c"rand".as_ptr(),
            },
        ];
        let full = |facts: *const FactDescriptor| {
            let mut base = descriptor(sites.as_ptr(), 2);
            base.num_facts = 2;
            NestDescriptorV2 { base, facts }
        };
        // SAFETY: every pointer is NULL or points to live data above.
        let identity = unsafe { full(facts.as_ptr()).base.identity() }.unwrap();
        assert_eq!(identity.facts.len(), 2);
        assert_eq!(
            (identity.facts[0].kind, identity.facts[0].operation.as_str()),
            (FactKind::Reduction, "+")
        );
        assert_eq!(identity.facts[1].name, "rand");
        let refuse = |facts: *const FactDescriptor| {
            // SAFETY: as above.
            unsafe { full(facts).base.identity() }.unwrap_err()
        };
        assert_eq!(refuse(std::ptr::null()), "facts is NULL");
        facts[1].loop_site = 1;
        assert!(refuse(facts.as_ptr()).contains("site 1, not a loop"));
        facts[1].kind = 9;
        assert!(refuse(facts.as_ptr()).contains("fact 1 has kind 9"));
        // Version 1 has no facts, whatever its `reserved` says.
        let mut old = full(facts.as_ptr());
        old.base.abi_version = 1;
        // SAFETY: as above.
        assert!(unsafe { old.base.identity() }.unwrap().facts.is_empty());
    }

    fn site(kind: SiteKind, depth: u32, parent_loop: Option<u32>) -> SiteInfo {
        SiteInfo {
            kind,
            depth,
            size: 8,
            line: 0,
            column: 0,
            parent_loop,
            name: String::new(),
        }
    }

    #[test]
    fn loop_chains_must_match_the_depths() {
        let good = [
            site(SiteKind::Loop, 1, None),
            site(SiteKind::Loop, 2, Some(0)),
            site(SiteKind::Load, 2, Some(1)),
            site(SiteKind::Store, 1, Some(0)),
        ];
        assert_eq!(check_loop_chains(&good), Ok(()));
        let mut too_deep = good.clone();
        too_deep[2].depth = 3;
        assert!(check_loop_chains(&too_deep).is_err());
        let mut not_a_loop = good.clone();
        not_a_loop[2].parent_loop = Some(3);
        assert!(check_loop_chains(&not_a_loop).is_err());
        let mut cycle = good.clone();
        cycle[0].parent_loop = Some(1);
        assert!(check_loop_chains(&cycle).is_err());
        let mut missing = good;
        missing[2].parent_loop = Some(99);
        assert!(check_loop_chains(&missing).is_err());
    }
}
