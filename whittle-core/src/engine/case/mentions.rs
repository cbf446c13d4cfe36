//! Which other files of a case a file names, read without a grammar: a file's stem (its name
//! before the first dot) right after a path or module separator or a quote (`require('./range')`,
//! `from .parser import`, `#include "shapes.h"`) and not followed by a name character, `-` or
//! `(` (a call of a method of that name). How imports look in most languages; a file that names
//! many others is likely one that uses them (an entry point, a package's `__init__.py`).

use std::path::Path;

use memchr::memmem;

/// How many of `others` (paths of the other files of the case) `content` names.
pub(super) fn files_named<'a>(content: &[u8], others: impl Iterator<Item = &'a Path>) -> usize {
    others
        .filter(|path| stem(path).is_some_and(|stem| names(content, stem)))
        .count()
}

/// The name of a file before its first dot, when it is long enough to mean something.
fn stem(path: &Path) -> Option<&[u8]> {
    let name = path.file_name()?.as_encoded_bytes();
    let stem = name.split(|&byte| byte == b'.').next()?;
    (stem.len() >= 2).then_some(stem)
}

/// Whether `stem` occurs in `content` as a name in a path or a module path.
fn names(content: &[u8], stem: &[u8]) -> bool {
    memmem::find_iter(content, stem).any(|at| {
        let before = at.checked_sub(1).map(|i| content[i]);
        let after = content.get(at + stem.len()).copied();
        before.is_some_and(|byte| b"./'\"`<".contains(&byte))
            && !after.is_some_and(|byte| byte.is_ascii_alphanumeric() || b"_-(".contains(&byte))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(content: &str, others: &[&str]) -> usize {
        files_named(content.as_bytes(), others.iter().map(Path::new))
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
    }

    #[test]
    fn words_calls_and_longer_names_do_not() {
        // A word of prose, a method call, a longer name, a name of one letter.
        assert_eq!(named("a parser of ranges", &["parser.py", "range.js"]), 0);
        assert_eq!(named("super().__init__(x)", &["__init__.py"]), 0);
        assert_eq!(named("require('./compare-build')", &["compare.js"]), 0);
        assert_eq!(named("require('./a')", &["a.js"]), 0);
    }
}
