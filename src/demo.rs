//! Built-in examples reduced with built-in in-process tests: nothing of the user is needed.

use std::io::IsTerminal;
use std::sync::Arc;

use crate::atoms::AtomKind;
use crate::cache::{CacheKind, CachePolicy};
use crate::cli::DemoArgs;
use crate::control::SplitFactor;
use crate::dd::{DdOptions, Direction, ParallelMode, ReduceOrder, SplitStyle};
use crate::engine::{Session, SessionOptions, StagesFactory};
use crate::events::{Action, Event};
use crate::oracle::{Oracle, predicate};
use crate::reduce::{Job, Settings};
use crate::tree::Language;

/// A built-in example: an input, a test, and the settings that show it best.
pub struct Example {
    pub name: &'static str,
    pub description: &'static str,
    pub input: &'static [u8],
    pub settings: Settings,
    pub oracle: fn() -> Arc<dyn Oracle>,
    /// The language of the input (for the parse tree and node edits), by name.
    pub language: Option<&'static str>,
    /// The pipeline it runs (`whittle algorithms`).
    pub pipeline: &'static str,
}

impl Example {
    /// The language of the input, when this build parses it.
    pub fn grammar(&self) -> Option<&'static Language> {
        self.language
            .and_then(|name| Language::by_name(name).ok())
            .filter(|language| language.is_available())
    }

    /// Starts a session on the example: its input, settings, pipeline and in-process test.
    pub fn start(&self, options: SessionOptions) -> anyhow::Result<Session> {
        let job = Job::new(self.input.to_vec(), self.settings.clone());
        let stages = crate::pipeline::stages_named(&self.settings, self.pipeline)?;
        let factory: StagesFactory = crate::pipeline::stages_factory(self.settings.clone());
        Session::start(job, (self.oracle)(), stages, factory, options)
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
                parallel: ParallelMode::Stable,
            },
            fixpoint: false,
            cache: CachePolicy {
                kind: CacheKind::Content,
                store_interesting: false,
                evict_larger: true,
            },
            jobs: 1,
            limits: Default::default(),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate("contains 2 and 4", |c: &[u8]| {
                c.contains(&b'2') && c.contains(&b'4')
            }))
        },
        language: None,
        pipeline: "ddmin",
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
            language: Some("json".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate("valid JSON mentioning 87", |c: &[u8]| {
                serde_json::from_slice::<serde_json::Value>(c)
                    .is_ok_and(|value| value.to_string().contains("87"))
            }))
        },
        language: Some("json"),
        pipeline: "ddmin",
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
                      \"Hello world!\"; the default tree pipeline hoists the printf out of \
                      the if; or select the if statement and press h",
        input: HELLO_C,
        settings: Settings {
            atoms: vec![AtomKind::Line],
            jobs: 1,
            language: Some("c".into()),
            ..Settings::default()
        },
        oracle: || {
            Arc::new(predicate(
                "parses as C and prints Hello world!",
                |c: &[u8]| {
                    let Ok(language) = crate::tree::Language::by_name("c") else {
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
        language: Some("c"),
        pipeline: crate::pipeline::DEFAULT_TREE_PIPELINE,
    }
}

/// Every built-in example.
pub fn examples() -> Vec<Example> {
    let mut examples = vec![table_4_1(), json_87()];
    if crate::tree::Language::by_name("c").is_ok_and(|c| c.is_available()) {
        examples.push(hello_hoist());
    }
    examples
}

/// `whittle demo`: runs an example and prints each candidate and the result.
pub fn run(args: &DemoArgs) -> anyhow::Result<i32> {
    let examples = examples();
    if args.list {
        for example in &examples {
            println!("{:<12} {}", example.name, example.description);
        }
        println!("\nrun one with `whittle demo --example NAME`");
        return Ok(0);
    }
    let Some(example) = examples.into_iter().find(|e| e.name == args.example) else {
        eprintln!(
            "whittle: no example named `{}` (see `whittle demo --list`)",
            args.example
        );
        return Ok(crate::cli::EXIT_USAGE);
    };
    if !args.no_tui && std::io::stdout().is_terminal() {
        return run_in_tui(example, &args.theme);
    }
    println!("whittle demo: {}", example.description);
    println!("input:\n{}", String::from_utf8_lossy(example.input));

    let options = SessionOptions {
        exit_when_done: true,
        language: None,
        start_in_step_mode: false,
    };
    let session = example.start(options)?;
    let events = session.events().clone();
    let printer = std::thread::spawn(move || print_steps(events));
    let report = session.wait()?;
    let _ = printer.join();
    if let Some(failure) = report.failure {
        eprintln!("whittle: {failure}");
        return Ok(crate::cli::EXIT_ERROR);
    }
    println!(
        "\nresult:\n{}",
        String::from_utf8_lossy(&report.finished.result)
    );
    println!("{}", crate::headless::report(&report.finished.stats));
    Ok(0)
}

/// Opens the UI on an example in step mode: nothing is tested until `n` (or space).
fn run_in_tui(example: Example, theme: &str) -> anyhow::Result<i32> {
    let theme = match crate::tui::Theme::from_environment(theme) {
        Ok(theme) => theme,
        Err(error) => {
            eprintln!("whittle: {error}");
            return Ok(crate::cli::EXIT_USAGE);
        }
    };
    let language = example.grammar();
    let options = SessionOptions {
        exit_when_done: false,
        language,
        start_in_step_mode: true,
    };
    let session = example.start(options)?;
    let app = crate::tui::App::new(
        session.commands(),
        crate::tui::AppOptions {
            theme,
            input_name: format!("demo {}", example.name),
            clock: Arc::new(crate::tui::SystemClock),
            exit_when_done: false,
            language,
            extension: None,
        },
    );
    let (_, _, app) = crate::tui::terminal::run(&session, app)?;
    let result = app.snapshot().best.clone();
    drop(session);
    println!(
        "whittle demo {}: the best result when you left:\n{}",
        example.name,
        String::from_utf8_lossy(&result)
    );
    Ok(0)
}

fn print_steps(events: crossbeam_channel::Receiver<Event>) {
    println!(
        "{:>5}  {:<12} {:<24} {:<6} outcome",
        "step", "candidate", "content", "action"
    );
    for event in events {
        match event {
            Event::Round { n, len, .. } => println!("       -- {len} units in {n} chunks"),
            Event::CandidateJudged {
                step,
                candidate,
                action,
                outcome,
                preview,
                ..
            } => println!(
                "{step:>5}  {:<12} {:<24} {:<6} {} {}",
                candidate.describe(),
                preview.map_or_else(|| "…".to_string(), |p| format!("{p:?}")),
                match action {
                    Action::Test => "test",
                    Action::Cache => "cache",
                    Action::Guard => "guard",
                },
                outcome.symbol(),
                outcome
            ),
            Event::Accepted { size, branch, .. } => {
                println!("       => {} ({size} bytes)", branch.describe())
            }
            _ => {}
        }
    }
}
