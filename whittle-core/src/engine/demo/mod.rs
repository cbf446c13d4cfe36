//! Built-in examples reduced with built-in in-process tests: nothing of the user is needed.

pub mod java_model;

use std::sync::Arc;

use crate::exec::cache::{CacheKind, CachePolicy};
use crate::text::atoms::AtomKind;

use crate::engine::job::Job;
use crate::engine::pipeline::{Pipeline, Settings};
use crate::engine::session::{Session, SessionOptions};
use crate::exec::oracle::{Oracle, predicate};
use crate::params::{DdOptions, Direction, ParallelMode, ReduceOrder, SplitFactor, SplitStyle};
use crate::tree::Language;

/// A built-in example: an input, a test, and the settings that show it best (the pipeline and
/// the input's language included).
pub struct Example {
    pub name: &'static str,
    pub description: &'static str,
    pub input: &'static [u8],
    pub settings: Settings,
    pub oracle: fn() -> Arc<dyn Oracle>,
    /// A pipeline the lesson runs beside the example's own, on the same input with the same
    /// test and settings, to compare them step by step.
    pub rival: Option<&'static str>,
}

impl Example {
    /// Starts a session on the example: its input, settings (and so its pipeline) and
    /// in-process test.
    pub fn start(&self, options: SessionOptions) -> anyhow::Result<Session> {
        let job = Job::new(self.input.to_vec(), self.settings.clone());
        Session::start(job, (self.oracle)(), options)
    }

    /// The example's settings with the rival pipeline instead of its own (`None` without a
    /// rival).
    pub fn rival_settings(&self) -> Option<Settings> {
        let rival = self.rival?.parse::<Pipeline>().ok()?;
        Some(Settings {
            algorithm: Some(rival),
            ..self.settings.clone()
        })
    }

    /// Starts a session on the example with its rival pipeline (`None` without a rival).
    pub fn start_rival(&self, options: SessionOptions) -> Option<anyhow::Result<Session>> {
        let settings = self.rival_settings()?;
        let job = Job::new(self.input.to_vec(), settings);
        Some(Session::start(job, (self.oracle)(), options))
    }
}

/// The dissertation's Table 4.1: "12345" keeping '2' and '4'.
fn table_4_1() -> Example {
    Example {
        name: "table-4.1",
        description: "the dissertation's Table 4.1: reduce \"12345\" while it contains 2 and 4 \
                      (characters, complements only, backward, content cache)",
        input: b"12345",
        settings: Settings {
            atoms: vec![AtomKind::Char],
            split_factor: SplitFactor::Finite(2),
            dd: DdOptions {
                order: ReduceOrder::ComplementsOnly,
                subset_direction: Direction::Forward,
                complement_direction: Direction::Backward,
                split: SplitStyle::Zeller,
            },
            fixpoint: false,
            cache: CachePolicy {
                kind: CacheKind::Content,
                store_interesting: false,
                evict_larger: true,
            },
            jobs: 1,
            parallel: Some(ParallelMode::Stable),
            limits: Default::default(),
            algorithm: Some(Pipeline::ddmin()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate("contains 2 and 4", |c: &[u8]| {
                c.contains(&b'2') && c.contains(&b'4')
            }))
        },
        rival: None,
    }
}

const JSON_DOCUMENT: &[u8] = b"{\n  \"foo\": \"bar\",\n  \"baz\": [\n    6,\n    7,\n    12,\n    31,\n    77,\n    87\n  ]\n}\n";

/// A JSON document reduced while it stays valid JSON that mentions 87.
fn json_87() -> Example {
    Example {
        name: "json-87",
        description: "a JSON document reduced while it parses and its value, printed, contains 87 \
                      (lines then characters, DDMIN*)",
        input: JSON_DOCUMENT,
        settings: Settings {
            jobs: 1,
            algorithm: Some(Pipeline::ddmin()),
            language: Some("json".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate("valid JSON mentioning 87", |c: &[u8]| {
                serde_json::from_slice::<serde_json::Value>(c)
                    .is_ok_and(|value| value.to_string().contains("87"))
            }))
        },
        rival: None,
    }
}

const HELLO_C: &[u8] =
    b"int main() {\n    if (1) {\n        printf(\"Hello world!\\n\");\n    }\n}\n";

/// The dissertation's hoisting example (Fig 7.1): the `if (1) { ... }` wrapper can only go by
/// replacing the `if` by its body.
fn hello_hoist() -> Example {
    Example {
        name: "hello-hoist",
        description: "the dissertation's hoisting example (Fig 7.1): C that must parse and print \
                      \"Hello world!\"; HDDH^r then lines hoists the printf out of the if; or \
                      select the if statement and press h",
        input: HELLO_C,
        settings: Settings {
            atoms: vec![AtomKind::Line],
            jobs: 1,
            // The tree and then lines, once each with the papers' ddmin, as the lesson shows it.
            algorithm: "hddhr+ddmin:line".parse().ok(),
            language: Some("c".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate(
                "parses as C and prints Hello world!",
                |c: &[u8]| {
                    let Ok(language) = Language::by_name("c") else {
                        return false;
                    };
                    let text = String::from_utf8_lossy(c);
                    text.contains("int main()")
                        && text.contains("printf(\"Hello world!\\n\");")
                        && crate::tree::parse(language, c.to_vec(), crate::tree::Preprocess::none())
                            .is_ok_and(|tree| tree.input_errors() == 0)
                },
            ))
        },
        rival: None,
    }
}

/// The dissertation's LocalizedPi (Figs 7.3-7.4), as `examples/localized-pi-java` holds it.
pub const LOCALIZED_PI: &str = r#"public class LocalizedPi {
    private static String decSeparator(String locale) {
        if (locale.equals("en")) {
            return ".";
        }
        throw new RuntimeException("Unsupported locale");
    }
    private static String formatParts(String intPart, String fracPart, String decSep) {
        return intPart.concat(decSep).concat(fracPart);
    }
    public static void main(String[] args) {
        String pi = formatParts("3", "14", decSeparator(args[0]));
        System.out.println(pi);
    }
}
"#;

/// The dissertation's LocalizedPi (Figs 7.3-7.4): pruning alone keeps `formatParts`, whose
/// call is what passes the exception's argument on; hoisting the call's argument into the
/// call's place first lets pruning remove the method.
fn localized_pi() -> Example {
    Example {
        name: "localized-pi",
        description: "the dissertation's LocalizedPi (Figs 7.3-7.4): Java that must compile, run \
                      with en and throw with hu (a model of javac and java: no JDK needed); \
                      Hoist^r*+HDD^r* removes formatParts, HDD^r* alone keeps it (pick hddr \
                      with key a to compare)",
        input: LOCALIZED_PI.as_bytes(),
        settings: Settings {
            jobs: 1,
            algorithm: "hoistr+hddr".parse().ok(),
            language: Some("java".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate(
                "compiles, runs with en, throws with hu (a model)",
                java_model::interesting,
            ))
        },
        rival: None,
    }
}

const LEVELS_C: &[u8] = b"int square(int x) { return x * x; }\nint unused(int y) {\n    int z = y + 1;\n    return z * 2;\n}\nint main() {\n    int a = 3;\n    int b = square(a);\n    if (b > 5) {\n        printf(\"big\\n\");\n    }\n    return 0;\n}\n";

/// HDD (Fig 2.2a) level by level on a C file: the functions, then their parts, then theirs.
fn hdd_levels() -> Example {
    Example {
        name: "hdd-levels",
        description: "HDD level by level (Fig 2.2a): C that must parse and keep the printf of a \
                      square; each level of the tree is one ddmin configuration, the \
                      Configuration pane names the level, the tree's depth and the nodes",
        input: LEVELS_C,
        settings: Settings {
            jobs: 1,
            algorithm: "hdd".parse().ok(),
            language: Some("c".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate(
                "parses as C and prints big for a square",
                |c: &[u8]| {
                    let Ok(language) = Language::by_name("c") else {
                        return false;
                    };
                    let text = String::from_utf8_lossy(c);
                    text.contains("printf(\"big\\n\");")
                        && text.contains("int square(")
                        && text.contains("= square(")
                        && crate::tree::parse(language, c.to_vec(), crate::tree::Preprocess::none())
                            .is_ok_and(|tree| tree.input_errors() == 0)
                },
            ))
        },
        rival: None,
    }
}

/// The worked example of the ProbDD and CDD artifacts: eight lines, two of them needed.
fn cdd_vs_ddmin() -> Example {
    Example {
        name: "cdd-vs-ddmin",
        description: "the CDD paper's artifact example: lines a..h while c and h stay, by CDD \
                      (p0 0.25) and ddmin side by side: 9 tests against 15; CDD's heat strip \
                      shows each line's counter",
        input: b"a\nb\nc\nd\ne\nf\ng\nh\n",
        settings: Settings {
            atoms: vec![AtomKind::Line],
            jobs: 1,
            fixpoint: false,
            belief: crate::params::BeliefOptions {
                initial_probability: 0.25,
                ..Default::default()
            },
            algorithm: "cdd:line".parse().ok(),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate("keeps lines c and h", |c: &[u8]| {
                let text = String::from_utf8_lossy(c);
                text.lines().any(|line| line == "c") && text.lines().any(|line| line == "h")
            }))
        },
        rival: Some("ddmin:line"),
    }
}

/// Every built-in example.
pub fn examples() -> Vec<Example> {
    let mut examples = vec![table_4_1(), json_87(), cdd_vs_ddmin()];
    if Language::by_name("c").is_ok_and(|c| c.is_available()) {
        examples.push(hello_hoist());
        examples.push(hdd_levels());
    }
    if Language::by_name("java").is_ok_and(|java| java.is_available()) {
        examples.push(localized_pi());
    }
    examples
}

#[cfg(test)]
mod tests;
