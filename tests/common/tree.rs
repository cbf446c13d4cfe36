//! Inputs shared by the tree tests: the fixtures of every language and the inputs of the
//! repository's examples.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use whittle_core::tree::{Language, Preprocess, Tree};

pub fn project_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Files under `dir` whose extension names a language compiled into this build.
pub fn parsable_files(dir: &Path) -> Vec<(PathBuf, &'static Language)> {
    let mut files = Vec::new();
    files_under(dir, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let language = Language::for_path(&path).ok()?;
            language.is_available().then_some((path, language))
        })
        .collect()
}

/// The fixtures under `tests/fixtures/`.
pub fn fixtures() -> Vec<(PathBuf, &'static Language)> {
    parsable_files(&project_dir().join("tests/fixtures"))
}

/// The fixtures of one language.
pub fn fixtures_of(language: &str) -> Vec<(PathBuf, &'static Language)> {
    fixtures()
        .into_iter()
        .filter(|(_, l)| l.name() == language)
        .collect()
}

/// The inputs of the repository's `examples/` (the papers' examples).
pub fn example_inputs() -> Vec<(PathBuf, &'static Language)> {
    parsable_files(&project_dir().join("examples"))
}

pub fn parse(path: &Path, language: &'static Language, preprocess: Preprocess) -> Arc<Tree> {
    let source = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    whittle_core::tree::parse(language, source, preprocess)
        .unwrap_or_else(|error| panic!("{}: {error:#}", path.display()))
}

/// Whether the language is compiled in.
pub fn available(name: &str) -> bool {
    Language::by_name(name).is_ok_and(Language::is_available)
}
