//! The name check beside the syntax guard: whether a candidate drops every declaration of a
//! name that it still uses (`var a = …; a();` without the `var`). Most tests of such candidates
//! fail (the compiler or interpreter stops at the undeclared name), so while a schedule may
//! guess (before the round that settles it) the tester can judge them without a test once
//! enough of them failed in the run.
//!
//! A declaration is a name (a named leaf whose kind is an identifier of any sort) that fills its
//! parent's `name` or `declarator` field, or the `left` or `pattern` field of an assignment or
//! declaration ([`super::declares`]). Names are told apart by their kind and text, whatever
//! their scope: a name is left undeclared only when no declaration of it is left anywhere.
//! Where names are resolved only as the code runs (JavaScript, Python), members looked up in a
//! value (`o.x`) are no uses (objects may get them at run time), nor is a use inside a
//! function or a type annotation (it may never be evaluated); where the compilers resolve
//! them all (the profile's `names_resolved_before_running`: C, Go, Java, Rust, ...) every use
//! counts, members (`t.errorf()`, of a method `errorf` of the same kind of name) among them,
//! and so do the uses of the other files of a case (`NameIndex::new`'s `outside`).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::{Language, declares, is_name_kind};

/// One occurrence of a name: where it is, whether it declares the name, whether it stands
/// where it may never be evaluated (inside a function, or in a type annotation), and whether
/// it is a member looked up in a value (`o.x`).
struct Occurrence {
    bytes: Range<usize>,
    declares: bool,
    may_not_run: bool,
    member: bool,
}

impl Occurrence {
    /// Whether it counts for the name check: a declaration always; a use when every use
    /// counts (`every_use`), else when it surely runs and is no member.
    fn counts(&self, every_use: bool) -> bool {
        self.declares || every_use || !(self.may_not_run || self.member)
    }
}

/// Whether a node of `kind` in `field` of its parent holds code that may never be evaluated:
/// a function, method or lambda runs only when called; a type annotation, only in some
/// languages and versions (Python's postponed annotations never).
fn may_not_run(kind: &str, field: Option<&str>) -> bool {
    (kind.contains("function") && !kind.contains("call"))
        || kind.contains("method")
        || kind.contains("lambda")
        || kind.contains("closure")
        || matches!(field, Some("type" | "return_type"))
}

/// Whether a name in this field of its parent is a member looked up in a value (`o.x`, `s->f`):
/// such names need no declaration in scope (an object may get the member at run time).
pub fn is_member(field: Option<&str>) -> bool {
    matches!(field, Some("field" | "property" | "attribute"))
}

/// The names a text declares and the names it uses elsewhere, members looked up in a value
/// among them (`parse.Tree`, `n.Copy()`): what the files of one program give each other (a
/// package's files, a header and its source), by text.
#[derive(Debug, Default)]
pub struct DeclaredNames {
    pub declared: HashSet<Box<[u8]>>,
    pub used: HashSet<Box<[u8]>>,
}

impl DeclaredNames {
    /// The names of `text` in `language`; `None` when the grammar is not compiled in.
    pub fn of(language: &'static Language, text: &[u8]) -> Option<DeclaredNames> {
        let tree = super::ParserPool::new(language).ok()?.parse(text)?;
        let mut names = DeclaredNames::default();
        visit_names(&tree, text, 0..text.len(), |_, name, occurrence| {
            let set = if occurrence.declares {
                &mut names.declared
            } else {
                &mut names.used
            };
            if !set.contains(name) {
                set.insert(name.into());
            }
        });
        Some(names)
    }
}

/// Visits the names of `tree` (over `text`) that overlap `within`, in document order.
fn visit_names<'t>(
    tree: &tree_sitter::Tree,
    text: &'t [u8],
    within: Range<usize>,
    mut visit: impl FnMut(u16, &'t [u8], Occurrence),
) {
    let mut cursor = tree.walk();
    // The nodes above the cursor's node: their kinds, and whether they may not run.
    let mut parents: Vec<(&str, bool)> = Vec::new();
    let mut may_not_run_above = 0;
    loop {
        let node = cursor.node();
        let overlaps = node.start_byte() < within.end && node.end_byte() > within.start
            || node.start_byte() == node.end_byte() && within.contains(&node.start_byte());
        if overlaps {
            let field = cursor.field_name();
            if node.child_count() == 0 {
                if node.is_named() && is_name_kind(node.kind()) {
                    let bytes = node.start_byte()..node.end_byte();
                    let occurrence = Occurrence {
                        declares: declares(field, parents.last().map(|&(kind, _)| kind)),
                        may_not_run: may_not_run_above > 0 || may_not_run(node.kind(), field),
                        member: is_member(field),
                        bytes: bytes.clone(),
                    };
                    visit(node.kind_id(), &text[bytes], occurrence);
                }
            } else if cursor.goto_first_child() {
                let holds = may_not_run(node.kind(), field);
                parents.push((node.kind(), holds));
                may_not_run_above += usize::from(holds);
                continue;
            }
        }
        // The next node after this one's subtree.
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            if parents.pop().is_some_and(|(_, holds)| holds) {
                may_not_run_above -= 1;
            }
        }
    }
}

/// The declared names of one text (the current best), with where each is declared and used.
pub struct NameIndex {
    /// Whether uses that may never be evaluated count (see [`NameIndex::new`]).
    every_use: bool,
    /// Each declared name's index, by text and kind.
    names: HashMap<Box<[u8]>, Vec<(u16, usize)>>,
    /// Per name: where it is declared and where else it occurs, in document order.
    declared: Vec<Vec<Range<usize>>>,
    used: Vec<Vec<Range<usize>>>,
    /// Per name: whether code outside the text uses it.
    used_outside: Vec<bool>,
    /// Every declaration, in document order, with its name's index.
    declarations: Vec<(Range<usize>, usize)>,
}

impl NameIndex {
    /// The declared names of `text`, whose parse is `tree`. With `every_use` (a language whose
    /// compilers resolve every name before the program runs) every use of a name counts,
    /// members looked up in a value among them; without, only the uses outside functions and
    /// type annotations (code that surely runs), members not.
    /// The names of `outside` are used by code outside the text (other files of a case).
    pub fn new(
        tree: &tree_sitter::Tree,
        text: &[u8],
        every_use: bool,
        outside: Option<&HashSet<Box<[u8]>>>,
    ) -> NameIndex {
        let mut occurrences: HashMap<(u16, &[u8]), Vec<Occurrence>> = HashMap::new();
        visit_names(tree, text, 0..text.len(), |kind, name, occurrence| {
            if occurrence.counts(every_use) {
                occurrences
                    .entry((kind, name))
                    .or_default()
                    .push(occurrence);
            }
        });
        let mut index = NameIndex {
            every_use,
            names: HashMap::new(),
            declared: Vec::new(),
            used: Vec::new(),
            used_outside: Vec::new(),
            declarations: Vec::new(),
        };
        for ((kind, name), found) in occurrences {
            if !found.iter().any(|occurrence| occurrence.declares) {
                continue;
            }
            let id = index.declared.len();
            index.names.entry(name.into()).or_default().push((kind, id));
            let (declared, used): (Vec<_>, Vec<_>) = found.into_iter().partition(|o| o.declares);
            index
                .declarations
                .extend(declared.iter().map(|o| (o.bytes.clone(), id)));
            index
                .declared
                .push(declared.into_iter().map(|o| o.bytes).collect());
            index.used.push(used.into_iter().map(|o| o.bytes).collect());
            (index.used_outside).push(outside.is_some_and(|outside| outside.contains(name)));
        }
        index
            .declarations
            .sort_unstable_by_key(|(bytes, _)| bytes.start);
        index
    }

    /// Whether the candidate (`candidate`, parsed as `tree`), made from the indexed text by
    /// replacing its bytes `old` with the candidate's bytes `new` (both from the same start),
    /// declares no longer a name that it still uses.
    pub fn undeclares(
        &self,
        old: Range<usize>,
        tree: &tree_sitter::Tree,
        candidate: &[u8],
        new: Range<usize>,
    ) -> bool {
        let touched = |bytes: &Range<usize>| bytes.start < old.end && bytes.end > old.start;
        let first = self
            .declarations
            .partition_point(|(bytes, _)| bytes.end <= old.start);
        // What the new bytes declare and use, by name (listed when first needed).
        let mut in_new: Option<HashMap<usize, (bool, bool)>> = None;
        for (_, name) in self.declarations[first..]
            .iter()
            .take_while(|(bytes, _)| bytes.start < old.end)
        {
            if !self.declared[*name].iter().all(touched) {
                continue;
            }
            let in_new = in_new.get_or_insert_with(|| self.names_in(tree, candidate, new.clone()));
            let (declared_anew, used_anew) = in_new.get(name).copied().unwrap_or_default();
            if declared_anew {
                continue;
            }
            if used_anew
                || self.used_outside[*name]
                || self.used[*name].iter().any(|bytes| !touched(bytes))
            {
                return true;
            }
        }
        false
    }

    /// The indexed names among the names of `tree` (over `text`) within `bytes`: whether each
    /// is declared there, and whether it is used.
    fn names_in(
        &self,
        tree: &tree_sitter::Tree,
        text: &[u8],
        bytes: Range<usize>,
    ) -> HashMap<usize, (bool, bool)> {
        let mut found: HashMap<usize, (bool, bool)> = HashMap::new();
        if bytes.is_empty() {
            return found;
        }
        visit_names(tree, text, bytes, |kind, name, occurrence| {
            if !occurrence.counts(self.every_use) {
                return;
            }
            let kinds = self.names.get(name).map_or(&[][..], Vec::as_slice);
            if let Some(&(_, id)) = kinds.iter().find(|(known, _)| *known == kind) {
                let (declared, used) = found.entry(id).or_default();
                *declared |= occurrence.declares;
                *used |= !occurrence.declares;
            }
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use crate::tree::{Language, SyntaxGuard};

    /// Whether the guard, its best `best`, finds that `candidate` leaves a used name undeclared.
    fn undeclares(language: &str, best: &str, candidate: &str) -> bool {
        let language = Language::by_name(language).expect("the grammar is compiled in");
        let guard = SyntaxGuard::new(language, best.as_bytes()).expect("guard");
        let admission = guard.judge(candidate.as_bytes(), true);
        assert!(admission.admitted, "{candidate}");
        admission.undeclares
    }

    const PROGRAM: &str = "var a = f();\nfunction f() { return 1; }\nvar o = {};\nuse(a, o.f);\n";

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn removing_the_only_declaration_of_a_used_name_undeclares_it() {
        let without_a = PROGRAM.replace("var a = f();\n", "");
        assert!(undeclares("javascript", PROGRAM, &without_a));
        // Replaced by a statement that does not declare it (a hoist).
        let hoisted = PROGRAM.replace("var a = f();", "f();");
        assert!(undeclares("javascript", PROGRAM, &hoisted));
        // Two removals at once: the edit spans them and what lies between.
        let both = PROGRAM
            .replace("var a = f();\n", "")
            .replace("var o = {};\n", "");
        assert!(undeclares("javascript", PROGRAM, &both));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn a_name_declared_again_unused_or_used_as_a_member_may_go() {
        // Its uses go with it.
        let unused = PROGRAM
            .replace("var a = f();\n", "")
            .replace("use(a, o.f)", "use(o.f)");
        assert!(!undeclares("javascript", PROGRAM, &unused));
        // Declared anew by what takes its place.
        let redeclared = PROGRAM.replace("var a = f();", "let a;");
        assert!(!undeclares("javascript", PROGRAM, &redeclared));
        // Declared elsewhere too.
        let twice = format!("{PROGRAM}var a = 2;\n");
        let without_first = twice.replacen("var a = f();\n", "", 1);
        assert!(!undeclares("javascript", &twice, &without_first));
        // `o.f` is a member looked up at run time: `f` may go while `f()` goes with `a`.
        let without_f = PROGRAM
            .replace("var a = f();\n", "")
            .replace("function f() { return 1; }\n", "")
            .replace("use(a, o.f)", "use(o.f)");
        assert!(!undeclares("javascript", PROGRAM, &without_f));
        // A use that is no member keeps it needed.
        let without_only_f = PROGRAM.replace("function f() { return 1; }\n", "");
        assert!(undeclares("javascript", PROGRAM, &without_only_f));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn in_javascript_a_use_inside_a_function_that_may_never_run_does_not_count() {
        let program = "var a = 1;\nfunction g() { return a; }\nvar h = () => a;\n";
        assert!(!undeclares(
            "javascript",
            program,
            &program.replace("var a = 1;\n", "")
        ));
        let called = format!("{program}use(a);\n");
        assert!(undeclares(
            "javascript",
            &called,
            &called.replace("var a = 1;\n", "")
        ));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-python"),
        ignore = "needs the Python grammar (cargo feature lang-python)"
    )]
    fn in_python_an_annotation_may_name_what_is_gone() {
        let program = "class P:\n    pass\n\nclass L:\n    p: P\n\nx = P()\n";
        let without_p = program.replace("class P:\n    pass\n\n", "");
        assert!(undeclares("python", program, &without_p));
        let unused = without_p.replace("x = P()\n", "x = 1\n");
        assert!(!undeclares("python", program, &unused));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn a_name_whose_kind_changes_outside_the_edit_is_seen_declared_anew() {
        // Without the type and the receiver, the method `A` is the function `A` the literal
        // uses: nothing is left undeclared, though the declaring bytes are outside the edit.
        let best = "package A\ntype A A\nfunc (A A) A() {\n\t_ = []any{A}\n}\n";
        let candidate = "package A\nfunc A() {\n\t_ = []any{A}\n}\n";
        assert!(!undeclares("go", best, candidate));
        let without_type = "package A\nfunc (A A) A() {\n\t_ = []any{A}\n}\n";
        assert!(undeclares("go", best, without_type));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn c_declarators_declare_their_names() {
        // Uses inside functions count: the compiler resolves them all.
        let program = "int x;\ntypedef int T;\nT main(void) { return x; }\n";
        assert!(undeclares("c", program, &program.replace("int x;\n", "")));
        assert!(undeclares(
            "c",
            program,
            &program.replace("typedef int T;\n", "")
        ));
        let unused = program
            .replace("int x;\n", "")
            .replace("return x;", "return 0;");
        assert!(!undeclares("c", program, &unused));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn where_the_compiler_resolves_every_name_members_and_outside_uses_count() {
        let language = Language::by_name("go").expect("the grammar is compiled in");
        let best = "package p\ntype T struct{}\nfunc (T) m() {}\nfunc f(t T) { t.m() }\nfunc C() {}\nfunc D() {}\n";
        // The method is used as a member: its declaration cannot go.
        assert!(undeclares(
            "go",
            best,
            &best.replace("func (T) m() {}\n", "")
        ));
        // What other files use (here C) counts as used; D is used nowhere.
        let outside: std::collections::HashSet<Box<[u8]>> = [Box::from(&b"C"[..])].into();
        let guard = SyntaxGuard::new(language, best.as_bytes())
            .expect("guard")
            .with_outside_uses(Some(std::sync::Arc::new(outside)));
        let judge = |candidate: String| guard.judge(candidate.as_bytes(), true).undeclares;
        assert!(judge(best.replace("func C() {}\n", "")));
        assert!(!judge(best.replace("func D() {}\n", "")));
        // Without the outside uses C may go.
        assert!(!undeclares("go", best, &best.replace("func C() {}\n", "")));
    }
}
