//! Outcome caches: Zeller's configuration trie, the content cache and the SHA3-256 content-hash
//! cache, with the dissertation's Proposals 1-3 (ch. 4) as switches.

use std::collections::HashMap;

use serde::Serialize;
use sha3::Digest as _;
use sha3::Sha3_256;

use crate::outcome::Outcome;

/// The identifier of a unit (a line, a character, a tree node) in the current universe.
pub type UnitId = u32;

/// Which cache remembers outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    /// No cache: every candidate is tested.
    None,
    /// Zeller's trie over unit ids; valid within one universe of units (one pass, one tree level).
    Config,
    /// The serialized candidate as key.
    Content,
    /// The SHA3-256 digest of the candidate as key, its size as value (Proposal 3).
    Hash,
}

crate::params::named_values!(CacheKind {
    None = "none",
    Config = "config",
    Content = "content",
    Hash = "hash",
});

/// The cache and its proposal switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CachePolicy {
    pub kind: CacheKind,
    /// Also store interesting outcomes (turns Proposal 1, "store passing outcomes only", off).
    pub store_interesting: bool,
    /// Proposal 2: when a new interesting candidate is accepted, evict the entries larger than it.
    pub evict_larger: bool,
}

impl CachePolicy {
    /// The dissertation's recommendation: Proposals 1-3 all on, with the hash cache.
    pub fn recommended() -> Self {
        CachePolicy {
            kind: CacheKind::Hash,
            store_interesting: false,
            evict_larger: true,
        }
    }

    /// The reference implementation's behaviour: everything stored, nothing evicted.
    pub fn keep_everything(kind: CacheKind) -> Self {
        CachePolicy {
            kind,
            store_interesting: true,
            evict_larger: false,
        }
    }
}

/// How a candidate is identified for a cache lookup.
#[derive(Clone, Copy, Debug)]
pub struct CacheKey<'a> {
    /// The configuration as the concatenation of these slices of unit ids, in order.
    pub config: &'a [&'a [UnitId]],
    /// The serialized candidate (needed by the content caches only).
    pub content: Option<&'a [u8]>,
}

impl CacheKey<'_> {
    fn config_len(&self) -> usize {
        self.config.iter().map(|part| part.len()).sum()
    }
}

/// Cache statistics, cumulated over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct CacheStats {
    pub lookups: u64,
    pub hits_interesting: u64,
    pub hits_not: u64,
    pub hits_unresolved: u64,
    pub inserts: u64,
    pub evictions: u64,
    pub entries: u64,
    pub peak_entries: u64,
    pub bytes: u64,
    pub peak_bytes: u64,
}

impl CacheStats {
    pub fn hits(&self) -> u64 {
        self.hits_interesting + self.hits_not + self.hits_unresolved
    }

    fn count_hit(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Interesting => self.hits_interesting += 1,
            Outcome::NotInteresting => self.hits_not += 1,
            Outcome::Unresolved => self.hits_unresolved += 1,
        }
    }

    fn set_size(&mut self, entries: usize, bytes: usize) {
        self.entries = entries as u64;
        self.bytes = bytes as u64;
        self.peak_entries = self.peak_entries.max(self.entries);
        self.peak_bytes = self.peak_bytes.max(self.bytes);
    }
}

/// How much memory a cache may take by default (its own estimate of its size). Past it, the
/// entries of the largest candidates go first (the reduction is past them, like Proposal 2),
/// down to three quarters of the limit.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 << 20;

/// An outcome cache of any kind, following its policy, within a memory limit.
#[derive(Debug)]
pub struct OutcomeCache {
    policy: CachePolicy,
    store: Store,
    stats: CacheStats,
    memory_limit: usize,
}

#[derive(Debug)]
enum Store {
    None,
    Config(ConfigTrie),
    Content(ContentStore),
    Hash(HashStore),
}

impl Store {
    fn empty(kind: CacheKind) -> Store {
        match kind {
            CacheKind::None => Store::None,
            CacheKind::Config => Store::Config(ConfigTrie::new()),
            CacheKind::Content => Store::Content(ContentStore::default()),
            CacheKind::Hash => Store::Hash(HashStore::default()),
        }
    }
}

impl OutcomeCache {
    pub fn new(policy: CachePolicy) -> Self {
        OutcomeCache {
            policy,
            store: Store::empty(policy.kind),
            stats: CacheStats::default(),
            memory_limit: DEFAULT_MEMORY_LIMIT,
        }
    }

    /// Forgets every outcome (a flaky test's verdicts of single runs, when the run goes back
    /// to an earlier result); the statistics so far stay.
    pub fn clear(&mut self) {
        self.store = Store::empty(self.policy.kind);
        self.refresh_size();
    }

    /// Keeps the cache's estimate of its size under `bytes` (see [`DEFAULT_MEMORY_LIMIT`]).
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    pub fn policy(&self) -> CachePolicy {
        self.policy
    }

    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Whether lookups need the serialized candidate.
    pub fn needs_content(&self) -> bool {
        matches!(self.store, Store::Content(_) | Store::Hash(_))
    }

    /// Starts a new universe of unit ids: the configuration trie forgets everything, since the
    /// same ids now denote other units. Content caches are unaffected.
    pub fn begin_universe(&mut self) {
        if let Store::Config(trie) = &mut self.store {
            *trie = ConfigTrie::new();
            self.stats.set_size(0, trie.bytes());
        }
    }

    /// Looks a candidate up. Counts the lookup and, on a hit, the hit by outcome.
    pub fn lookup(&mut self, key: CacheKey<'_>) -> Option<Outcome> {
        if matches!(self.store, Store::None) {
            return None;
        }
        let found = self.find(key);
        self.stats.lookups += 1;
        if let Some(outcome) = found {
            self.stats.count_hit(outcome);
        }
        found
    }

    /// Whether a content cache holds an outcome for `content` (not counted as a lookup; a
    /// configuration cache cannot tell).
    pub fn knows(&self, content: &[u8]) -> bool {
        let key = CacheKey {
            config: &[],
            content: Some(content),
        };
        !matches!(self.store, Store::Config(_)) && self.find(key).is_some()
    }

    fn find(&self, key: CacheKey<'_>) -> Option<Outcome> {
        match &self.store {
            Store::None => None,
            Store::Config(trie) => trie.lookup(key.config),
            Store::Content(store) => key.content.and_then(|c| store.lookup(c)),
            Store::Hash(store) => key.content.and_then(|c| store.lookup(c)),
        }
    }

    /// Whether storing or finding a candidate reads it through a digest ([`sha3_256`]), which
    /// a caller may work out beforehand (alongside the test) and hand to
    /// [`OutcomeCache::store_digested`].
    pub fn keys_by_digest(&self) -> bool {
        matches!(self.store, Store::Hash(_))
    }

    /// Stores the outcome of a test, unless the policy says not to (Proposal 1). Room is made
    /// first when the entry would take the cache past its memory limit (an entry larger than
    /// the whole limit is not stored).
    pub fn store(&mut self, key: CacheKey<'_>, outcome: Outcome) {
        self.store_digested(key, None, outcome);
    }

    /// [`OutcomeCache::store`] with the digest of the key's content when it is known already
    /// (it must be [`sha3_256`] of that content).
    pub fn store_digested(&mut self, key: CacheKey<'_>, digest: Option<Digest>, outcome: Outcome) {
        if outcome.is_interesting() && !self.policy.store_interesting {
            return;
        }
        let incoming = match &self.store {
            Store::None => 0,
            Store::Config(_) => key.config_len() * TRIE_NODE_BYTES,
            Store::Content(_) => key.content.map_or(0, |c| c.len() + ENTRY_OVERHEAD),
            Store::Hash(_) => std::mem::size_of::<(Digest, HashEntry)>() + 1,
        };
        // A huge entry is not worth the many small ones it would push out.
        if incoming > self.memory_limit / 4 {
            return;
        }
        if self.stats.bytes as usize + incoming > self.memory_limit {
            self.shrink_to((self.memory_limit / 4 * 3).saturating_sub(incoming));
        }
        let stored = match &mut self.store {
            Store::None => false,
            Store::Config(trie) => trie.insert(key.config, outcome),
            Store::Content(store) => key.content.is_some_and(|c| store.insert(c, outcome)),
            Store::Hash(store) => key
                .content
                .is_some_and(|c| store.insert(c, digest, outcome)),
        };
        if stored {
            self.stats.inserts += 1;
        }
        self.refresh_size();
    }

    /// Evicts the entries of the largest candidates until the cache takes at most `bytes`.
    fn shrink_to(&mut self, bytes: usize) {
        let evicted = match &mut self.store {
            Store::None => 0,
            Store::Config(trie) => trie.shrink_to(bytes),
            Store::Content(store) => store.shrink_to(bytes),
            Store::Hash(store) => store.shrink_to(bytes),
        };
        self.stats.evictions += evicted as u64;
        self.refresh_size();
    }

    /// An interesting candidate was accepted: evict the larger entries (Proposal 2). The size
    /// is in bytes for the content caches and in units for the configuration trie.
    pub fn accepted(&mut self, key: CacheKey<'_>) {
        if !self.policy.evict_larger {
            return;
        }
        let evicted = match &mut self.store {
            Store::None => 0,
            Store::Config(trie) => trie.evict_longer_than(key.config_len()),
            Store::Content(store) => key.content.map_or(0, |c| store.evict_larger_than(c.len())),
            Store::Hash(store) => key.content.map_or(0, |c| store.evict_larger_than(c.len())),
        };
        self.stats.evictions += evicted as u64;
        self.refresh_size();
    }

    fn refresh_size(&mut self) {
        let (entries, bytes) = match &self.store {
            Store::None => (0, 0),
            Store::Config(trie) => (trie.entries, trie.bytes()),
            Store::Content(store) => (store.map.len(), store.bytes),
            Store::Hash(store) => (store.map.len(), store.bytes()),
        };
        self.stats.set_size(entries, bytes);
    }
}

/// What a trie node costs at most (see [`ConfigTrie::bytes`]).
const TRIE_NODE_BYTES: usize =
    std::mem::size_of::<TrieNode>() + 2 * (std::mem::size_of::<((u32, UnitId), u32)>() + 1);

/// Zeller's outcome trie: each path from the root spells a configuration.
#[derive(Debug)]
struct ConfigTrie {
    /// Per node: the outcome of the configuration spelled by the path to it, and its depth.
    nodes: Vec<TrieNode>,
    edges: HashMap<(u32, UnitId), u32>,
    entries: usize,
}

#[derive(Clone, Copy, Debug)]
struct TrieNode {
    outcome: Option<Outcome>,
    depth: u32,
}

impl ConfigTrie {
    fn new() -> Self {
        ConfigTrie {
            nodes: vec![TrieNode {
                outcome: None,
                depth: 0,
            }],
            edges: HashMap::new(),
            entries: 0,
        }
    }

    fn lookup(&self, config: &[&[UnitId]]) -> Option<Outcome> {
        let mut node = 0u32;
        for &unit in config.iter().flat_map(|part| part.iter()) {
            node = *self.edges.get(&(node, unit))?;
        }
        self.nodes[node as usize].outcome
    }

    fn insert(&mut self, config: &[&[UnitId]], outcome: Outcome) -> bool {
        let mut node = 0u32;
        for &unit in config.iter().flat_map(|part| part.iter()) {
            let next_id = self.nodes.len() as u32;
            let depth = self.nodes[node as usize].depth + 1;
            let child = *self.edges.entry((node, unit)).or_insert(next_id);
            if child == next_id {
                self.nodes.push(TrieNode {
                    outcome: None,
                    depth,
                });
            }
            node = child;
        }
        let slot = &mut self.nodes[node as usize].outcome;
        let fresh = slot.is_none();
        *slot = Some(outcome);
        self.entries += usize::from(fresh);
        fresh
    }

    /// Drops every configuration longer than `len`, compacting the trie. Returns how many
    /// entries were evicted.
    fn evict_longer_than(&mut self, len: usize) -> usize {
        let len = len as u32;
        if !self.nodes.iter().any(|n| n.depth > len) {
            return 0;
        }
        let before = self.entries;
        // A node stays when its configuration is short enough and it, or a node below it that
        // stays, has an outcome (the prefixes of evicted configurations go too). Children are
        // made after their parents, so one pass from the last node up decides.
        let mut parent = vec![u32::MAX; self.nodes.len()];
        for (&(from, _), &child) in &self.edges {
            parent[child as usize] = from;
        }
        let mut keep = vec![false; self.nodes.len()];
        keep[0] = true;
        for id in (1..self.nodes.len()).rev() {
            let node = self.nodes[id];
            if node.depth <= len && (keep[id] || node.outcome.is_some()) {
                keep[id] = true;
                keep[parent[id] as usize] = true;
            }
        }
        let mut remap = vec![u32::MAX; self.nodes.len()];
        let mut nodes = Vec::new();
        for (old, node) in self.nodes.iter().enumerate() {
            if keep[old] {
                remap[old] = nodes.len() as u32;
                nodes.push(*node);
            }
        }
        let edges = self
            .edges
            .iter()
            .filter(|&(_, &child)| remap[child as usize] != u32::MAX)
            .map(|(&(parent, unit), &child)| {
                ((remap[parent as usize], unit), remap[child as usize])
            })
            .collect();
        self.entries = nodes.iter().filter(|n| n.outcome.is_some()).count();
        self.nodes = nodes;
        self.edges = edges;
        before - self.entries
    }

    /// The memory taken: per node, the node and its edge with the edge table's spare capacity
    /// (a hash table grows by doubling, so up to twice its entries).
    fn bytes(&self) -> usize {
        self.nodes.len() * TRIE_NODE_BYTES
    }

    /// Drops the longest configurations until the trie takes at most `bytes`. Returns how many
    /// entries were evicted.
    fn shrink_to(&mut self, bytes: usize) -> usize {
        let mut evicted = 0;
        while self.bytes() > bytes && self.nodes.len() > 1 {
            let deepest = self.nodes.iter().map(|n| n.depth).max().unwrap_or(0) as usize;
            evicted += self.evict_longer_than(deepest * 3 / 4);
            self.nodes.shrink_to_fit();
            self.edges.shrink_to_fit();
        }
        evicted
    }
}

/// How many entries of a content store hold a candidate of each size: a candidate of a size no
/// entry has is not in the store, found out without hashing it (a lookup of a candidate of
/// megabytes otherwise reads it all, for nothing most of the time: sizes rarely repeat).
#[derive(Debug, Default)]
struct SizeIndex(HashMap<usize, u32>);

impl SizeIndex {
    fn may_hold(&self, size: usize) -> bool {
        self.0.contains_key(&size)
    }

    fn added(&mut self, size: usize) {
        *self.0.entry(size).or_default() += 1;
    }

    /// The entries left are those of `sizes`.
    fn rebuild(&mut self, sizes: impl Iterator<Item = usize>) {
        self.0.clear();
        for size in sizes {
            self.added(size);
        }
    }
}

/// The content cache: the whole candidate is the key.
#[derive(Debug, Default)]
struct ContentStore {
    map: HashMap<Box<[u8]>, Outcome>,
    bytes: usize,
    sizes: SizeIndex,
}

const ENTRY_OVERHEAD: usize = std::mem::size_of::<(Box<[u8]>, Outcome)>() + 8;

impl ContentStore {
    fn lookup(&self, content: &[u8]) -> Option<Outcome> {
        if !self.sizes.may_hold(content.len()) {
            return None;
        }
        self.map.get(content).copied()
    }

    fn insert(&mut self, content: &[u8], outcome: Outcome) -> bool {
        let fresh = self.map.insert(content.into(), outcome).is_none();
        if fresh {
            self.bytes += content.len() + ENTRY_OVERHEAD;
            self.sizes.added(content.len());
        }
        fresh
    }

    fn evict_larger_than(&mut self, size: usize) -> usize {
        let before = self.map.len();
        self.map.retain(|key, _| key.len() <= size);
        self.refresh();
        before - self.map.len()
    }

    /// Recounts the bytes and sizes of the entries left.
    fn refresh(&mut self) {
        self.bytes = self.map.keys().map(|k| k.len() + ENTRY_OVERHEAD).sum();
        self.sizes.rebuild(self.map.keys().map(|k| k.len()));
    }

    /// Evicts the largest candidates until the entries take at most `bytes`.
    fn shrink_to(&mut self, bytes: usize) -> usize {
        let before = self.map.len();
        let mut entries: Vec<(Box<[u8]>, Outcome)> = self.map.drain().collect();
        entries.sort_unstable_by_key(|(key, _)| key.len());
        let mut total = 0;
        self.map = entries
            .into_iter()
            .take_while(|(key, _)| {
                total += key.len() + ENTRY_OVERHEAD;
                total <= bytes
            })
            .collect();
        self.refresh();
        before - self.map.len()
    }
}

/// Proposal 3: the SHA3-256 digest of the candidate as key, its size (and outcome) as value.
#[derive(Debug, Default)]
struct HashStore {
    map: HashMap<Digest, HashEntry>,
    sizes: SizeIndex,
}

#[derive(Clone, Copy, Debug)]
struct HashEntry {
    size: u64,
    outcome: Outcome,
}

impl HashStore {
    fn lookup(&self, content: &[u8]) -> Option<Outcome> {
        if !self.sizes.may_hold(content.len()) {
            return None;
        }
        self.map.get(&sha3_256(content)).map(|entry| entry.outcome)
    }

    fn insert(&mut self, content: &[u8], digest: Option<Digest>, outcome: Outcome) -> bool {
        let entry = HashEntry {
            size: content.len() as u64,
            outcome,
        };
        debug_assert!(digest.is_none_or(|digest| digest == sha3_256(content)));
        let digest = digest.unwrap_or_else(|| sha3_256(content));
        let fresh = self.map.insert(digest, entry).is_none();
        if fresh {
            self.sizes.added(content.len());
        }
        fresh
    }

    fn evict_larger_than(&mut self, size: usize) -> usize {
        let before = self.map.len();
        self.map.retain(|_, entry| entry.size <= size as u64);
        self.refresh_sizes();
        before - self.map.len()
    }

    fn refresh_sizes(&mut self) {
        self.sizes
            .rebuild(self.map.values().map(|entry| entry.size as usize));
    }

    fn bytes(&self) -> usize {
        self.map.len() * (std::mem::size_of::<(Digest, HashEntry)>() + 1)
    }

    /// Evicts the entries of the largest candidates until the table takes at most `bytes`.
    fn shrink_to(&mut self, bytes: usize) -> usize {
        let entry = std::mem::size_of::<(Digest, HashEntry)>() + 1;
        // A table's capacity may be about twice its entries.
        let keep = bytes / entry / 2;
        let before = self.map.len();
        if before > keep {
            let mut entries: Vec<(Digest, HashEntry)> = self.map.drain().collect();
            entries.sort_unstable_by_key(|(_, entry)| entry.size);
            entries.truncate(keep);
            self.map = entries.into_iter().collect();
            self.refresh_sizes();
        }
        self.map.shrink_to_fit();
        before - self.map.len()
    }
}

/// A SHA3-256 digest.
pub type Digest = [u8; 32];

/// The SHA3-256 digest of `content`.
pub fn sha3_256(content: &[u8]) -> Digest {
    Sha3_256::digest(content).into()
}

/// The SHA3-256 digest of `content` in lowercase hexadecimal.
pub fn sha3_hex(content: &[u8]) -> String {
    use std::fmt::Write;
    sha3_256(content)
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(parts: &'a [&'a [UnitId]], content: &'a [u8]) -> CacheKey<'a> {
        CacheKey {
            config: parts,
            content: Some(content),
        }
    }

    #[test]
    fn sha3_matches_the_standard_test_vector() {
        assert_eq!(
            sha3_hex(b"abc"),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
    }

    #[test]
    fn config_trie_spells_configurations_across_parts() {
        let mut cache = OutcomeCache::new(CachePolicy::keep_everything(CacheKind::Config));
        cache.store(key(&[&[1, 2], &[3]], b""), Outcome::NotInteresting);
        cache.store(key(&[&[1, 2]], b""), Outcome::Interesting);
        assert_eq!(
            cache.lookup(key(&[&[1], &[2, 3]], b"")),
            Some(Outcome::NotInteresting)
        );
        assert_eq!(
            cache.lookup(key(&[&[1, 2]], b"")),
            Some(Outcome::Interesting)
        );
        assert_eq!(
            cache.lookup(key(&[&[1]], b"")),
            None,
            "inner nodes have no outcome"
        );
        assert_eq!(cache.stats().entries, 2);
        assert_eq!(cache.stats().hits(), 2);
        assert_eq!(cache.stats().lookups, 3);
    }

    #[test]
    fn proposal_1_keeps_interesting_outcomes_out() {
        for kind in [CacheKind::Config, CacheKind::Content, CacheKind::Hash] {
            let mut cache = OutcomeCache::new(CachePolicy {
                kind,
                store_interesting: false,
                evict_larger: false,
            });
            cache.store(key(&[&[1]], b"a"), Outcome::Interesting);
            cache.store(key(&[&[2]], b"b"), Outcome::NotInteresting);
            assert_eq!(cache.lookup(key(&[&[1]], b"a")), None, "{kind}");
            assert_eq!(
                cache.lookup(key(&[&[2]], b"b")),
                Some(Outcome::NotInteresting)
            );
        }
    }

    #[test]
    fn proposal_2_evicts_larger_entries_on_acceptance() {
        for kind in [CacheKind::Config, CacheKind::Content, CacheKind::Hash] {
            let mut cache = OutcomeCache::new(CachePolicy {
                kind,
                store_interesting: false,
                evict_larger: true,
            });
            cache.store(key(&[&[1, 2, 3]], b"abc"), Outcome::NotInteresting);
            cache.store(key(&[&[1]], b"a"), Outcome::NotInteresting);
            cache.accepted(key(&[&[1, 2]], b"ab"));
            assert_eq!(cache.lookup(key(&[&[1, 2, 3]], b"abc")), None, "{kind}");
            assert_eq!(
                cache.lookup(key(&[&[1]], b"a")),
                Some(Outcome::NotInteresting)
            );
            assert_eq!(cache.stats().evictions, 1);
            assert_eq!(cache.stats().entries, 1);
            assert_eq!(cache.stats().peak_entries, 2);
        }
    }

    #[test]
    fn the_memory_limit_evicts_the_largest_candidates_first() {
        for kind in [CacheKind::Config, CacheKind::Content, CacheKind::Hash] {
            // A hash entry takes some 50 bytes whatever the candidate's size.
            let limit = if kind == CacheKind::Hash {
                8 << 10
            } else {
                64 << 10
            };
            let mut cache =
                OutcomeCache::new(CachePolicy::keep_everything(kind)).with_memory_limit(limit);
            let units: Vec<UnitId> = (0..10_000).collect();
            // Candidate i: units i*10.. (i*3 of them), content of i*10 bytes.
            let entry = |i: usize| (&units[i * 10..i * 13], vec![b'x'; i * 10]);
            for i in 1..=400 {
                let (config, content) = entry(i);
                cache.store(key(&[config], &content), Outcome::NotInteresting);
                assert!(
                    cache.stats().bytes <= limit as u64,
                    "{kind}: {:?}",
                    cache.stats()
                );
            }
            assert!(cache.stats().evictions > 0, "{kind}");
            // The smallest candidates are still known (the largest went first).
            for i in 1..=3 {
                let (config, content) = entry(i);
                assert_eq!(
                    cache.lookup(key(&[config], &content)),
                    Some(Outcome::NotInteresting),
                    "{kind}"
                );
            }
        }
    }

    #[test]
    fn begin_universe_clears_only_the_config_trie() {
        let mut config = OutcomeCache::new(CachePolicy::recommended());
        config.store(key(&[&[1]], b"a"), Outcome::NotInteresting);
        config.begin_universe();
        assert!(config.lookup(key(&[&[7]], b"a")).is_some());

        let mut trie = OutcomeCache::new(CachePolicy::keep_everything(CacheKind::Config));
        trie.store(key(&[&[1]], b"a"), Outcome::NotInteresting);
        trie.begin_universe();
        assert!(trie.lookup(key(&[&[1]], b"a")).is_none());
    }

    #[test]
    fn cache_kinds_keep_their_spellings() {
        let names: Vec<String> = CacheKind::ALL.iter().map(CacheKind::to_string).collect();
        assert_eq!(names, ["none", "config", "content", "hash"]);
    }
}
