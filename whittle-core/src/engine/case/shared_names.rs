//! The names the files of a case give each other, read with each file's grammar: a package's
//! files share their declarations (a Go package, a C source and its header, Java classes), so
//! a file whose declarations the others use can lose them only after the others lost their
//! uses. What orders the files' first turns, and what a file's name check counts as used (in
//! the languages whose names are all resolved before the program runs).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::bundle::CaseFile;
use crate::exec::cache::{Digest, sha3_256};
use crate::tree::{DeclaredNames, Language};

/// Each file's names, read again only when its content changed (known by its hash).
#[derive(Default)]
pub(super) struct SharedNames {
    read: HashMap<PathBuf, (Digest, Option<Arc<DeclaredNames>>)>,
}

impl SharedNames {
    /// The names of each file of `files` (`None` for a file without a grammar).
    fn of(&mut self, files: &[CaseFile]) -> Vec<Option<Arc<DeclaredNames>>> {
        files
            .iter()
            .map(|file| {
                let digest = sha3_256(&file.content);
                match self.read.get(&file.path) {
                    Some((read, names)) if *read == digest => names.clone(),
                    _ => {
                        let names = read_names(file).map(Arc::new);
                        (self.read).insert(file.path.clone(), (digest, names.clone()));
                        names
                    }
                }
            })
            .collect()
    }

    /// For each file of `files`, how many names it declares that the other files use without
    /// declaring them (summed over those files; none for a file without a grammar).
    pub(super) fn relied_on_counts(&mut self, files: &[CaseFile]) -> Vec<usize> {
        let names = self.of(files);
        let declarers = declarers(&names);
        let mut relied_on = vec![0; files.len()];
        for user in names.iter().flatten() {
            for name in user
                .used
                .iter()
                .filter(|&name| !user.declared.contains(name))
            {
                for &giver in declarers.get(&**name).into_iter().flatten() {
                    relied_on[giver] += 1;
                }
            }
        }
        relied_on
    }

    /// The names the file at `index` of `files` declares that the other files use and none of
    /// them declares: those it alone gives them (see [`read_names`]); `None` when there are
    /// none.
    pub(super) fn used_only_from(
        &mut self,
        files: &[CaseFile],
        index: usize,
    ) -> Option<Arc<HashSet<Box<[u8]>>>> {
        let names = self.of(files);
        let declarers = declarers(&names);
        let used: HashSet<Box<[u8]>> = (names.iter().enumerate())
            .filter(|&(other, _)| other != index)
            .filter_map(|(_, names)| names.as_deref())
            .flat_map(|other| &other.used)
            .filter(|name| declarers.get(&***name).is_some_and(|by| by[..] == [index]))
            .cloned()
            .collect();
        (!used.is_empty()).then(|| Arc::new(used))
    }
}

/// Which files (by index) declare each name of `names`.
fn declarers(names: &[Option<Arc<DeclaredNames>>]) -> HashMap<&[u8], Vec<usize>> {
    let mut declarers: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (file, names) in names.iter().enumerate() {
        for name in names.iter().flat_map(|names| &names.declared) {
            declarers.entry(&**name).or_default().push(file);
        }
    }
    declarers
}

/// The names of `file`, when its language's grammar is compiled in and the language resolves
/// every name before the program runs (where names come from other files through imports
/// made at run time, as in Python or JavaScript, a name's text says little of where it is
/// from).
fn read_names(file: &CaseFile) -> Option<DeclaredNames> {
    let language = Language::for_file(&file.path, &file.content).ok()?;
    if !language.resolves_names_before_running() {
        return None;
    }
    DeclaredNames::of(language, &file.content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(files: &[(&str, &str)]) -> Vec<CaseFile> {
        (files.iter())
            .map(|(path, content)| CaseFile::regular(path, content.as_bytes()))
            .collect()
    }

    const PACKAGE: &[(&str, &str)] = &[
        ("a.go", "package p\nfunc A() { B(); C() }\n"),
        ("b.go", "package p\nfunc B() { C() }\n"),
        ("c.go", "package p\nfunc C() {}\n"),
        ("notes.txt", "B C\n"),
    ];

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn a_file_is_relied_on_for_each_of_its_names_another_file_uses() {
        let mut names = SharedNames::default();
        // C is used by a.go and b.go, B by a.go; a.go's A by none; a text has no names.
        assert_eq!(names.relied_on_counts(&files(PACKAGE)), [0, 1, 2, 0]);
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn a_file_alone_gives_the_names_the_others_use_and_do_not_declare() {
        let mut names = SharedNames::default();
        let set = files(PACKAGE);
        // c.go alone gives C (b.go gives B itself).
        let from_c = names.used_only_from(&set, 2).expect("names");
        assert!(from_c.contains(&b"C"[..]) && !from_c.contains(&b"B"[..]));
        let from_b = names.used_only_from(&set, 1).expect("names");
        assert!(from_b.contains(&b"B"[..]) && !from_b.contains(&b"C"[..]));
        // What a.go's others use they declare themselves.
        assert_eq!(names.used_only_from(&set, 0), None);
        assert_eq!(names.used_only_from(&set, 3), None, "a text has no grammar");
    }
}
