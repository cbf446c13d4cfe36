//! Which other files of a case a file names, read without a grammar: a file's stem (its name
//! before the first dot) as a whole word right after a path or module separator or a quote
//! (`require('./range')`, `from .parser import`, `#include "shapes.h"`; after a name and a `.`
//! only on a line that imports: elsewhere that is a field) and not followed by `(` (a call of a
//! method of that name). How imports look in most languages: a file that names
//! many others is likely one that uses them (an entry point, a package's `__init__.py`), and a
//! file that a change left named by no file is likely one the test no longer needs. Also which
//! files are interfaces that constrain another (by their languages' profiles).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use memchr::memmem;

use crate::bundle::CaseFile;
use crate::tree::Language;

/// How many other files of `files` each file names.
pub(super) fn named_counts(files: &[CaseFile]) -> Vec<usize> {
    naming_graph(files, &Stems::of(files))
        .iter()
        .map(Vec::len)
        .collect()
}

/// Which files of `files` another file of the set, or the test's own text (`test_text`: its
/// command and scripts), names: likely ones the test needs while those files stay as they are.
pub(super) fn named_by_others(files: &[CaseFile], test_text: &[u8]) -> Vec<bool> {
    let stems = Stems::of(files);
    namer_counts(&naming_graph(files, &stems), &stems, test_text)
        .into_iter()
        .map(|namers| namers > 0)
        .collect()
}

/// For each file, how many files of the naming `graph`, and the test's text, name it.
fn namer_counts(graph: &[Vec<usize>], stems: &Stems, test_text: &[u8]) -> Vec<usize> {
    let mut namers = vec![0usize; graph.len()];
    for &to in graph
        .iter()
        .flatten()
        .chain(&stems.named_by(test_text, usize::MAX))
    {
        namers[to] += 1;
    }
    namers
}

/// Which files of `files` are interfaces whose implementation is in the set too (their
/// language's profile says which language they constrain: an OCaml `x.mli` beside its `x.ml`).
/// Every value an interface declares must be defined in its implementation, so the
/// implementation can lose only what the interface no longer declares: the interface takes
/// its turn first.
pub(super) fn constraining_interfaces(files: &[CaseFile]) -> Vec<bool> {
    let language_of = |path: &Path| Language::for_path(path).ok().map(Language::name);
    let implementations: HashSet<(PathBuf, &str)> = files
        .iter()
        .filter_map(|file| Some((file.path.with_extension(""), language_of(&file.path)?)))
        .collect();
    files
        .iter()
        .map(|file| {
            let constrained = Language::for_path(&file.path)
                .ok()
                .and_then(|language| language.profile().constrains.as_deref());
            constrained.is_some_and(|language| {
                implementations.contains(&(file.path.with_extension(""), language))
            })
        })
        .collect()
}

/// The files of `files` that the file at `changed` named as `before` and names no more, and
/// that no other file names now, with what only they name (and so on): what a change of one
/// file left unused, unless the test uses it itself. A file `kept`, or named by the test's own
/// text (`test_text`: its command and scripts), is never unused (nor what it names). In the
/// order of the set.
pub(super) fn left_unused(
    files: &[CaseFile],
    changed: usize,
    before: &[u8],
    kept: &[bool],
    test_text: &[u8],
) -> Vec<usize> {
    let stems = Stems::of(files);
    let graph = naming_graph(files, &stems);
    let mut namers = namer_counts(&graph, &stems, test_text);
    let named_before = stems.named_by(before, changed);
    let mut todo: Vec<usize> = named_before
        .into_iter()
        .filter(|to| !graph[changed].contains(to))
        .collect();
    let mut unused = vec![false; files.len()];
    while let Some(file) = todo.pop() {
        if unused[file] || namers[file] > 0 || file == changed || kept[file] {
            continue;
        }
        unused[file] = true;
        for &to in &graph[file] {
            namers[to] -= 1;
            todo.push(to);
        }
    }
    (0..files.len()).filter(|&file| unused[file]).collect()
}

/// The files of a set by their stems.
struct Stems<'a>(HashMap<&'a [u8], Vec<usize>>);

impl<'a> Stems<'a> {
    fn of(files: &'a [CaseFile]) -> Self {
        let mut stems: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for (index, file) in files.iter().enumerate() {
            if let Some(stem) = stem(&file.path) {
                stems.entry(stem).or_default().push(index);
            }
        }
        Stems(stems)
    }

    /// The files other than the one at `from` that `content` names, by index, in order: one
    /// scan of `content`, a lookup per word.
    fn named_by(&self, content: &[u8], from: usize) -> Vec<usize> {
        let mut named: Vec<usize> = named_words(content)
            .into_iter()
            .filter_map(|word| self.0.get(word))
            .flatten()
            .copied()
            .filter(|&to| to != from)
            .collect();
        named.sort_unstable();
        named.dedup();
        named
    }
}

/// For each file of `files`, the other files it names (by index): one scan of each file.
fn naming_graph(files: &[CaseFile], stems: &Stems) -> Vec<Vec<usize>> {
    (0..files.len())
        .map(|from| stems.named_by(&files[from].content, from))
        .collect()
}

/// The name of a file before its first dot, when it is long enough to mean something.
fn stem(path: &Path) -> Option<&[u8]> {
    let name = path.file_name()?.as_encoded_bytes();
    let stem = name.split(|&byte| byte == b'.').next()?;
    (stem.len() >= 2).then_some(stem)
}

/// A byte of a name: letters, digits, `_`, `-` and any byte of a non-ASCII character.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"_-".contains(&byte) || !byte.is_ascii()
}

/// The words of `content` that stand where a file's name would in a path or a module path:
/// right after `/`, a quote, `<` or a `.`, whole, and not called; a `.` that follows a name
/// only on a line that imports, requires or includes (`import mail.utils`): elsewhere that is
/// a field (`this.major`).
fn named_words(content: &[u8]) -> HashSet<&[u8]> {
    let mut words = HashSet::new();
    for line in content.split(|&byte| byte == b'\n') {
        let imports = ["import", "require", "include"]
            .iter()
            .any(|keyword| memmem::find(line, keyword.as_bytes()).is_some());
        let mut at = 0;
        while at < line.len() {
            let separator = match line[at] {
                b'.' => imports || at == 0 || !is_name_byte(line[at - 1]),
                byte => b"/'\"`<".contains(&byte),
            };
            if !separator {
                at += 1;
                continue;
            }
            let start = at + 1;
            let end = start
                + line[start..]
                    .iter()
                    .position(|&byte| !is_name_byte(byte))
                    .unwrap_or(line.len() - start);
            if end - start >= 2 && line.get(end) != Some(&b'(') {
                words.insert(&line[start..end]);
            }
            at = end.max(start);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many of `others` a file holding `content` names.
    fn named(content: &str, others: &[&str]) -> usize {
        let files: Vec<(&str, &str)> = std::iter::once(("0.txt", content))
            .chain(others.iter().map(|&path| (path, "")))
            .collect();
        named_counts(&case(&files))[0]
    }

    /// An OCaml interface beside its implementation constrains it; one alone, or another
    /// kind of file with the same stem, does not.
    #[cfg(feature = "lang-ocaml")]
    #[test]
    fn an_ocaml_interface_beside_its_implementation_constrains_it() {
        let files = case(&[
            ("list.ml", ""),
            ("list.mli", ""),
            ("map.mli", ""),
            ("lib/set.ml", ""),
            ("lib/set.mli", ""),
            ("shapes.c", ""),
            ("shapes.h", ""),
        ]);
        assert_eq!(
            constraining_interfaces(&files),
            [false, true, false, false, true, false, false]
        );
    }

    fn case(files: &[(&str, &str)]) -> Vec<CaseFile> {
        (files.iter())
            .map(|(path, content)| CaseFile::regular(path, content.as_bytes()))
            .collect()
    }

    fn paths(files: &[CaseFile], indices: &[usize]) -> Vec<String> {
        indices
            .iter()
            .map(|&i| files[i].path.display().to_string())
            .collect()
    }

    #[test]
    fn imports_and_includes_name_files() {
        let others = [
            "classes/range.js",
            "internal/re.js",
            "functions/compare-build.js",
        ];
        assert_eq!(
            named("const Range = require('./classes/range')\n", &others),
            1
        );
        assert_eq!(
            named("const { re } = require('../internal/re.js')", &others),
            1
        );
        assert_eq!(named("from .parser import Parser", &["parser.py"]), 1);
        assert_eq!(named("import mail.utils\n", &["utils.py"]), 1);
        assert_eq!(
            named("#include \"shapes.h\"\n", &["shapes.h", "shapes.c"]),
            2
        );
        assert_eq!(named("#include <émile.h>", &["émile.h"]), 1);
    }

    #[test]
    fn words_calls_and_longer_names_do_not() {
        // A word of prose, a method call, a longer name, a name of one letter.
        assert_eq!(named("a parser of ranges", &["parser.py", "range.js"]), 0);
        assert_eq!(
            named("parser = Parser()\nranges", &["parser.py", "ranges.py"]),
            0
        );
        assert_eq!(named("super().__init__(x)", &["__init__.py"]), 0);
        assert_eq!(named("require('./compare-build')", &["compare.js"]), 0);
        // A field of the same name as a file, outside an import.
        assert_eq!(named("if (this.major > v.major) {}", &["major.js"]), 0);
        assert_eq!(named("require('./a')", &["a.js"]), 0);
    }

    #[test]
    fn files_a_change_left_unused_are_those_no_other_file_names() {
        let mut files = case(&[
            (
                "index.js",
                "require('./lib/satisfies'); require('./lib/diff')",
            ),
            ("lib/satisfies.js", "const Range = require('./range')"),
            ("lib/range.js", "const re = require('../internal/re')"),
            ("internal/re.js", "exports.re = []"),
            (
                "lib/diff.js",
                "require('./parse'); require('../internal/re')",
            ),
            ("lib/parse.js", "module.exports = () => null"),
            ("lib/coerce.js", "match.index; require('./diff')"),
        ]);
        let before = files[0].content.clone();
        files[0].content = b"require('./lib/satisfies')".to_vec();
        let kept = [false; 7];
        // index.js no longer names diff.js; coerce.js still does (coerce.js is named by
        // nobody: the test may use it).
        assert!(left_unused(&files, 0, &before, &kept, b"").is_empty());
        files.pop();
        // Without coerce.js, diff.js goes and with it parse.js, which only it named; re.js
        // stays, the range still names it.
        assert_eq!(
            paths(&files, &left_unused(&files, 0, &before, &kept, b"")),
            ["lib/diff.js", "lib/parse.js"]
        );
        // A kept file stays, and so does what it names.
        let kept = [false, false, false, false, true, false];
        assert!(left_unused(&files, 0, &before, &kept, b"").is_empty());
        // Nor a file the test names itself.
        let kept = [false; 6];
        assert_eq!(
            paths(
                &files,
                &left_unused(&files, 0, &before, &kept, b"import lib.parse\n")
            ),
            ["lib/diff.js"]
        );
        // The changed file itself is not one of them, nor a file it still names.
        assert!(left_unused(&files, 1, &files[1].content.clone(), &kept, b"").is_empty());
    }
}
