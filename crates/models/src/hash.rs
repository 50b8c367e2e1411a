//! Hash maps and sets keyed by what a file cannot choose: the addresses of the scene's own
//! arrays (a key list shared by several channels, an index list shared by several
//! primitives). They hash with foldhash, seeded per process, instead of the standard
//! library's SipHash, which is built to resist keys chosen to collide and costs several times
//! as much a key. An animated character's export looks up each of its hundreds of channels
//! in such maps: SipHash and the maps' growth were 7 % of its instructions.
//!
//! A map keyed by what a file holds (a list of key times, a node index) keeps SipHash: there,
//! keys chosen to collide would make the lookups quadratic.

use std::collections::{HashMap, HashSet};

/// The hasher of [`AddressMap`] and [`AddressSet`].
pub(crate) type AddressHasher = foldhash::fast::RandomState;

/// A map keyed by addresses (see the module's docs).
pub(crate) type AddressMap<K, V> = HashMap<K, V, AddressHasher>;

/// A set of addresses (see the module's docs).
pub(crate) type AddressSet<K> = HashSet<K, AddressHasher>;

/// An empty [`AddressMap`] with room for `n` keys: sized once, never re-hashed as it fills.
pub(crate) fn address_map<K, V>(n: usize) -> AddressMap<K, V> {
    AddressMap::with_capacity_and_hasher(n, AddressHasher::default())
}

/// An empty [`AddressSet`] with room for `n` keys.
pub(crate) fn address_set<K>(n: usize) -> AddressSet<K> {
    AddressSet::with_capacity_and_hasher(n, AddressHasher::default())
}
