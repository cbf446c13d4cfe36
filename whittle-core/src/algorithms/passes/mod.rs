//! Text-level reduction stages over the tokens of the current best (no parse tree needed):
//! token-window deletion, balanced bracket regions, word normalisation. Each proposes edits
//! that one driver ([`edit::run_edit_stage`]) judges through the tester, to the stage's own
//! fixed point.

pub mod brackets;
pub mod conditions;
pub mod constructors;
pub mod declarations;
pub mod declarators;
pub mod edit;
pub mod indent;
pub mod inline;
pub mod lexer;
pub mod nodes;
pub mod receivers;
pub mod rename;
pub mod spans;
pub mod templates;
pub mod tokens;
pub mod typedefs;
pub mod unbind;
pub mod variables;
pub mod zeros;

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::algorithms::pins::Pins;
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::tree::Language;
use crate::tree::syntax::{parse_syntax, visit_preorder};

pub use edit::{Edit, EditOptions, EditRequest, EditStage, run_edit_stage};
pub use lexer::Syntax;

/// A text stage, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextStage {
    /// Delete 1 to 3 adjacent tokens.
    Tokens,
    /// Delete, hollow or unwrap a bracketed region.
    Brackets,
    /// Rename words, merge short names, numbers to `0`/`1`, strings to `""`.
    Rename,
    /// Delete a line and move the block indented under it left (Python's hoisting).
    Indent,
    /// Inline a function that only returns an expression into its calls (needs the grammar).
    Inline,
    /// Delete a balanced run of 4 to 64 tokens that ends where a statement ends.
    Spans,
    /// Delete a name's statements, declaration and uses together (needs the grammar).
    Unbind,
    /// Inline a type alias at its uses and delete it (needs the grammar).
    Typedefs,
    /// Inline a variable bound once at its reads and delete its binding (needs the grammar).
    Variables,
    /// A statement with a condition becomes the condition as a statement (needs the grammar).
    Conditions,
    /// A function definition becomes its declaration (needs the grammar).
    Declarations,
    /// Declarations of one type merge; a declarator loses its initializer (needs the grammar).
    Declarators,
    /// Constructors go with their callers' arguments; a class body empties (needs the grammar).
    Constructors,
    /// An unused template parameter goes with its arguments at every use (needs the grammar).
    Templates,
    /// A call becomes the zero value of its result type (Go; needs the grammar).
    Zeros,
    /// A type's methods become functions and its declaration goes (needs the grammar).
    Receivers,
    /// Delete a balanced run of 4 to 64 tokens ending anywhere, statement ends first.
    Runs,
}

impl TextStage {
    pub const ALL: [TextStage; 17] = [
        TextStage::Tokens,
        TextStage::Brackets,
        TextStage::Rename,
        TextStage::Indent,
        TextStage::Inline,
        TextStage::Spans,
        TextStage::Unbind,
        TextStage::Typedefs,
        TextStage::Variables,
        TextStage::Conditions,
        TextStage::Declarations,
        TextStage::Declarators,
        TextStage::Constructors,
        TextStage::Templates,
        TextStage::Zeros,
        TextStage::Receivers,
        TextStage::Runs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TextStage::Tokens => "tokens",
            TextStage::Brackets => "brackets",
            TextStage::Rename => "rename",
            TextStage::Indent => "indent",
            TextStage::Inline => "inline",
            TextStage::Spans => "spans",
            TextStage::Unbind => "unbind",
            TextStage::Typedefs => "typedefs",
            TextStage::Variables => "variables",
            TextStage::Conditions => "conditions",
            TextStage::Declarations => "declarations",
            TextStage::Declarators => "declarators",
            TextStage::Constructors => "constructors",
            TextStage::Templates => "templates",
            TextStage::Zeros => "zeros",
            TextStage::Receivers => "receivers",
            TextStage::Runs => "runs",
        }
    }

    /// Whether the stage reads the parse tree (it does nothing without the language's grammar).
    pub fn needs_grammar(self) -> bool {
        !matches!(
            self,
            TextStage::Tokens
                | TextStage::Brackets
                | TextStage::Rename
                | TextStage::Indent
                | TextStage::Spans
                | TextStage::Runs
        )
    }

    /// Whether it proposes an edit at (nearly) every token (every word for `rename`): its runs
    /// cost more the larger the text, so the schedule starts it on probation.
    pub fn sweeps_tokens(self) -> bool {
        matches!(
            self,
            TextStage::Tokens | TextStage::Rename | TextStage::Spans | TextStage::Runs
        )
    }

    /// One line for `whittle algorithms` and the UI's catalogue.
    pub fn description(self) -> &'static str {
        match self {
            TextStage::Tokens => {
                "delete 1-3 adjacent tokens (strings and comments are one token), widest first; \
                 then 1-3 words inside a string or comment"
            }
            TextStage::Brackets => {
                "delete a (...), [...] or {...} region, hollow it, or drop its brackets; \
                 the k-th element of every (...) after the same name at once"
            }
            TextStage::Rename => {
                "rename each word everywhere to the shortest unused name, merge short names, \
                 numbers to 0/1, strings to \"\" (keywords stay), one longer word to 0/1"
            }
            TextStage::Indent => {
                "delete a line and move the block indented under it to its indentation"
            }
            TextStage::Inline => {
                "a function that only returns an expression goes into every call of it, and its \
                 definition away (needs the language's grammar)"
            }
            TextStage::Spans => {
                "delete a run of 4-64 tokens that keeps the brackets balanced and ends where a \
                 statement ends, across statements, the longest at each token"
            }
            TextStage::Unbind => {
                "delete every statement that mentions a name (its declaration or import and all \
                 its uses) at once (needs the language's grammar)"
            }
            TextStage::Typedefs => {
                "a typedef or type alias goes into every use of its name, and its declaration \
                 away (needs the language's grammar)"
            }
            TextStage::Variables => {
                "a variable bound once and only read after goes into every read of it, and its \
                 binding away, when that is shorter (needs the language's grammar)"
            }
            TextStage::Conditions => {
                "an if, while or for statement becomes its condition as an expression statement \
                 (needs the language's grammar)"
            }
            TextStage::Declarations => {
                "a function, method or constructor definition becomes its declaration: the body \
                 (and member initializers) become ; (needs the language's grammar)"
            }
            TextStage::Declarators => {
                "two declarations of one type next to each other become one with both \
                 declarators (T a(0); T b(0); -> T a(0), b(0);); a declarator loses its \
                 initializer or constructor arguments (T g(k); -> T g;) (needs the grammar)"
            }
            TextStage::Constructors => {
                "a class's constructors go and every construction loses its arguments (A a(5); \
                 -> A a;); its body becomes {} with the same; a constructor's k-th parameter \
                 goes with the k-th argument of every construction (needs the grammar)"
            }
            TextStage::Templates => {
                "a template or generic parameter its declaration does not mention goes with \
                 the argument in its place at every use (P<int, char> -> P<int>); the last \
                 takes its template <...> with it (needs the grammar)"
            }
            TextStage::Zeros => {
                "a call becomes the zero value of the type it returns (Go: 0, \"\", false, \
                 nil, T{}; make(map[K]V) -> map[K]V{}) (needs the grammar)"
            }
            TextStage::Receivers => {
                "the methods of a type become functions (their receivers go) and the type's \
                 declaration goes, in one edit (Go) (needs the grammar)"
            }
            TextStage::Runs => {
                "delete a run of 4-64 tokens that keeps the brackets balanced and ends inside \
                 a statement (what spans leaves): the longest at each token"
            }
        }
    }

    /// Runs the stage on the tester's current best (see [`EditOptions`]). `language` is the
    /// input's language (for strings, comments and keywords), `None` for text.
    pub fn run(
        self,
        tester: &mut Tester,
        language: Option<&Language>,
        pins: &dyn Fn() -> Pins,
        options: EditOptions,
    ) -> Result<(), Stop> {
        let syntax = Syntax::for_language(language.map(|l| l.name()));
        let stage: Box<dyn EditStage + '_> = match (self, language) {
            (TextStage::Tokens, _) => Box::new(tokens::TokenWindows::new(syntax)),
            (TextStage::Brackets, _) => Box::new(brackets::BalancedRegions { syntax, language }),
            (TextStage::Rename, _) => Box::new(rename::Rename { syntax, language }),
            (TextStage::Indent, _) => Box::new(indent::LiftBlocks),
            (TextStage::Spans | TextStage::Runs, _) => Box::new(spans::TokenSpans {
                syntax,
                aligned: self == TextStage::Spans,
            }),
            (TextStage::Inline, Some(language)) => Box::new(inline::InlineCalls { language }),
            (TextStage::Unbind, Some(language)) => Box::new(unbind::RemoveBindings { language }),
            (TextStage::Typedefs, Some(language)) => {
                Box::new(typedefs::InlineTypedefs { language })
            }
            (TextStage::Variables, Some(language)) => {
                Box::new(variables::InlineVariables { language })
            }
            (TextStage::Conditions, Some(language)) => {
                Box::new(conditions::HoistConditions { language })
            }
            (TextStage::Declarations, Some(language)) => {
                Box::new(declarations::DefinitionsToDeclarations { language })
            }
            (TextStage::Declarators, Some(language)) => {
                Box::new(declarators::MergeDeclarators { language })
            }
            (TextStage::Constructors, Some(language)) => {
                Box::new(constructors::RemoveConstructors { language })
            }
            (TextStage::Templates, Some(language)) => {
                Box::new(templates::DropTemplateParameters { language })
            }
            (TextStage::Receivers, Some(language)) => {
                Box::new(receivers::RemoveReceivers { language })
            }
            (TextStage::Zeros, Some(language)) => Box::new(zeros::ZeroValues { language }),
            // The stages that edit a language's structure have nothing to do on plain text.
            (_, None) => return Ok(()),
        };
        run_edit_stage(&*stage, tester, pins, options)
    }
}

impl fmt::Display for TextStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TextStage {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TextStage::ALL
            .into_iter()
            .find(|stage| stage.name() == s)
            .ok_or_else(|| format!("unknown text stage `{s}`"))
    }
}

/// The words `text` uses as something other than a name: the leaves of its parse tree whose
/// text is a word and that are literal tokens of the grammar (`return`, `typedef`), primitive
/// types (`int`) or named after their own text (`true`, `null`). A word used both ways
/// (`new.target` and a variable `target`) counts as reserved; words in strings and comments
/// do not count.
/// Empty when the language is unknown or its grammar is not compiled in.
pub fn reserved_words(language: Option<&Language>, text: &[u8]) -> HashSet<Vec<u8>> {
    reserved_words_for(language, text, &EditRequest::all(0)).unwrap_or_default()
}

/// [`reserved_words`], for a stage working out its edits: the parse and the walk over its
/// leaves end early when the request reports a stop.
pub(crate) fn reserved_words_for(
    language: Option<&Language>,
    text: &[u8],
    request: &EditRequest<'_>,
) -> Result<HashSet<Vec<u8>>, Stop> {
    let mut reserved = HashSet::new();
    let Some(language) = language else {
        return Ok(reserved);
    };
    let Some(tree) = parse_syntax(language, text, || request.work())? else {
        return Ok(reserved);
    };
    visit_preorder(tree.root_node(), |node| {
        request.work()?;
        if node.child_count() == 0 {
            let leaf = &text[node.byte_range()];
            let keyword = !node.is_named()
                || node.kind() == "primitive_type"
                || node.kind().as_bytes() == leaf;
            if keyword
                && leaf.first().is_some_and(|&b| lexer::starts_word(b))
                && leaf.iter().all(|&b| lexer::is_word_byte(b))
            {
                reserved.insert(leaf.to_vec());
            }
        }
        Ok(())
    })?;
    Ok(reserved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_round_trip() {
        for stage in TextStage::ALL {
            assert_eq!(stage.name().parse::<TextStage>(), Ok(stage));
        }
        assert!("bogus".parse::<TextStage>().is_err());
    }

    fn reserved(language: &str, text: &str) -> Vec<String> {
        let language = Language::by_name(language).unwrap();
        let mut words: Vec<String> = reserved_words(Some(language), text.as_bytes())
            .into_iter()
            .map(|word| String::from_utf8(word).unwrap())
            .collect();
        words.sort();
        words
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn c_keywords_are_read_from_the_parse() {
        assert_eq!(
            reserved(
                "c",
                "typedef long T; int main() { T t; return \"if\" != 0; }"
            ),
            ["int", "long", "return", "typedef"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn contextual_javascript_keywords_stay_names() {
        assert_eq!(
            reserved(
                "javascript",
                "var target = {}; let of = true; f(target, of)"
            ),
            ["let", "true", "var"]
        );
        assert!(reserved_words(None, b"int x;").is_empty());
    }
}
