//! Benchmarks of the tree layer: parse + tree build + preprocessing of about 1 MB of C and of
//! JSON, the arena's memory per node, the unparse of one candidate, and the syntax guard's
//! judgement of a candidate (an incremental parse from the best's tree, beside a parse from
//! scratch).

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use whittle_core::tree::{
    Language, NodeId, ParserPool, Preprocess, SyntaxGuard, Tree, TreeEdits, TreeState,
};

const TARGET_BYTES: usize = 1 << 20;

fn fixture(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// About 1 MB of C: the C fixture repeated.
fn big_c() -> Vec<u8> {
    let unit = fixture("c/sample.c");
    let mut out = String::with_capacity(TARGET_BYTES + unit.len());
    while out.len() < TARGET_BYTES {
        out.push_str(&unit);
    }
    out.into_bytes()
}

/// About 1 MB of JSON: an array of copies of the JSON fixture.
fn big_json() -> Vec<u8> {
    let unit = fixture("json/sample.json");
    let mut out = String::with_capacity(TARGET_BYTES + unit.len());
    out.push('[');
    while out.len() < TARGET_BYTES {
        if out.len() > 1 {
            out.push_str(",\n");
        }
        out.push_str(unit.trim_end());
    }
    out.push_str("]\n");
    out.into_bytes()
}

/// The 1 MB C and JSON inputs, for the grammars this build has.
fn one_megabyte_inputs() -> Vec<(&'static str, &'static Language, Vec<u8>)> {
    [("c", big_c as fn() -> Vec<u8>), ("json", big_json)]
        .into_iter()
        .filter_map(|(name, make)| {
            let language = Language::by_name(name).ok()?;
            language.is_available().then(|| (name, language, make()))
        })
        .collect()
}

fn parse(language: &'static Language, source: &[u8]) -> Arc<Tree> {
    whittle_core::tree::parse(language, source.to_vec(), Preprocess::default()).unwrap()
}

fn bench_build(c: &mut Criterion) {
    for (name, language, source) in one_megabyte_inputs() {
        let tree = parse(language, &source);
        eprintln!(
            "{name}: {} bytes, {} nodes, arena {} bytes = {:.1} bytes per node (source included)",
            source.len(),
            tree.len(),
            tree.heap_bytes(),
            tree.heap_bytes() as f64 / tree.len() as f64
        );
        let mut group = c.benchmark_group(format!("build_{name}_1mb"));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_function("tree_sitter_parse_only", |b| {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(language.tables().unwrap().grammar())
                .unwrap();
            b.iter(|| black_box(parser.parse(&source, None)));
        });
        group.bench_function("parse_build_preprocess", |b| {
            b.iter(|| black_box(parse(language, &source)));
        });
        group.bench_function("parse_build_no_preprocess", |b| {
            b.iter(|| {
                black_box(
                    whittle_core::tree::parse(language, source.clone(), Preprocess::none())
                        .unwrap(),
                )
            });
        });
        group.finish();
    }
}

/// Removable nodes at the first level with many of them (what HDD would hand to ddmin).
fn busy_level(state: &TreeState) -> Vec<NodeId> {
    let tree = state.tree();
    (0..8)
        .map(|depth| {
            state
                .level(depth)
                .into_iter()
                .filter(|&id| tree.is_removable(id))
                .collect::<Vec<_>>()
        })
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

fn bench_render(c: &mut Criterion) {
    for (name, language, source) in one_megabyte_inputs() {
        let tree = parse(language, &source);
        let state = TreeState::new(tree.clone());
        let level = busy_level(&state);
        let mut group = c.benchmark_group(format!("render_{name}_1mb"));
        group.sample_size(20);
        group.throughput(Throughput::Bytes(source.len() as u64));
        let mut out = Vec::with_capacity(source.len());
        let one = TreeEdits::removing(level.first().copied());
        group.bench_function("remove_one_node", |b| {
            b.iter(|| state.render_into(black_box(&one), &mut out))
        });
        let half = TreeEdits::removing(level.iter().step_by(2).copied());
        group.bench_function("remove_every_other_node_of_a_level", |b| {
            b.iter(|| state.render_into(black_box(&half), &mut out))
        });
        let mut committed = state.clone();
        committed.commit(&half);
        let rest = TreeEdits::removing(level.iter().skip(1).step_by(4).copied());
        group.bench_function("on_half_removed_tree", |b| {
            b.iter(|| committed.render_into(black_box(&rest), &mut out))
        });
        group.finish();
    }
}

fn bench_guard(c: &mut Criterion) {
    for (name, language, source) in one_megabyte_inputs() {
        let tree = parse(language, &source);
        let state = TreeState::new(tree.clone());
        let level = busy_level(&state);
        let mut candidate = Vec::with_capacity(source.len());
        state.render_into(
            &TreeEdits::removing(level.get(level.len() / 2).copied()),
            &mut candidate,
        );
        let guard = SyntaxGuard::new(language, &source).unwrap();
        let parsers = ParserPool::new(language).unwrap();
        let mut group = c.benchmark_group(format!("guard_{name}_1mb"));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_function("admits_one_node_removed", |b| {
            b.iter(|| guard.admits(black_box(&candidate)))
        });
        group.bench_function("parse_from_scratch", |b| {
            b.iter(|| parsers.syntax_errors(black_box(&candidate)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench_build, bench_render, bench_guard);
criterion_main!(benches);
