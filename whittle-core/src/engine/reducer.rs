//! The library's entry point: [`Reducer`] reduces bytes while a test written in Rust (a closure,
//! or any [`Oracle`]) says they are still interesting, with the pipeline and settings the
//! command line would use, on the calling thread.

use std::sync::Arc;

use crate::engine::job::{Finished, Job};
use crate::engine::pipeline::{Pipeline, Settings};
use crate::exec::oracle::{Oracle, predicate};

/// A reduction of bytes in memory: the input, the settings, then [`Reducer::run`] with the test.
///
/// Without further settings the input is reduced by the default for texts without a grammar
/// ([`DEFAULT_TEXT_PIPELINE`](crate::engine::pipeline::DEFAULT_TEXT_PIPELINE): blocks of lines,
/// lines and the text stages to a fixed point, then characters); naming the input's
/// [`language`](Reducer::language) selects the default tree
/// pipeline for it (when its grammar is compiled in), and [`pipeline`](Reducer::pipeline) any
/// pipeline `whittle algorithms` lists.
///
/// ```
/// use whittle_core::Reducer;
///
/// let input = b"keep\ndrop\nthe bug\ndrop\n".to_vec();
/// let reduced = Reducer::new(input)
///     .run(|candidate: &[u8]| candidate.windows(3).any(|w| w == b"bug"))
///     .unwrap();
/// assert_eq!(reduced.result, b"bug");
/// ```
#[derive(Clone, Debug)]
pub struct Reducer {
    input: Vec<u8>,
    settings: Settings,
}

impl Reducer {
    /// A reduction of `input` with the default settings.
    pub fn new(input: impl Into<Vec<u8>>) -> Reducer {
        Reducer {
            input: input.into(),
            settings: Settings::default(),
        }
    }

    /// The input's language (a name `whittle languages` lists, e.g. `"c"`, `"json"`): the tree
    /// pipelines parse it in this language, and without a pipeline its default one runs.
    pub fn language(mut self, name: &str) -> Reducer {
        self.settings.language = Some(name.to_owned());
        self
    }

    /// The pipeline: stages joined with `+`, as `whittle reduce -a` takes it (e.g.
    /// `"hdd+ddmin:line"`).
    pub fn pipeline(mut self, pipeline: &str) -> Result<Reducer, String> {
        self.settings.algorithm = Some(pipeline.parse::<Pipeline>()?);
        Ok(self)
    }

    /// How many tests run at once (1 by default). The result is the same for any number: the
    /// interesting candidate first in order wins.
    pub fn jobs(mut self, jobs: usize) -> Reducer {
        self.settings.jobs = jobs.max(1);
        self
    }

    /// All the settings at once (what the command line builds from its options).
    pub fn settings(mut self, settings: Settings) -> Reducer {
        self.settings = settings;
        self
    }

    /// Reduces the input while `is_interesting` returns true; the input itself must be
    /// interesting. The closure may be called from several threads when [`jobs`](Reducer::jobs)
    /// is more than 1.
    pub fn run(
        self,
        is_interesting: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
    ) -> anyhow::Result<Finished> {
        self.run_with(Arc::new(predicate("a Rust closure", is_interesting)))
    }

    /// Reduces the input with any oracle (e.g. `exec::oracle::CommandOracle` for a command).
    pub fn run_with(self, oracle: Arc<dyn Oracle>) -> anyhow::Result<Finished> {
        let plan = self.settings.resolve();
        plan.check().map_err(anyhow::Error::msg)?;
        let job = Job::planned(self.input, plan);
        let mut tester = job.tester(oracle)?;
        Ok(job.run(&mut tester)?)
    }
}

#[cfg(test)]
mod tests {
    use super::Reducer;

    /// Interesting: at least three `a`, and `b` somewhere after a `c`.
    fn shows_the_bug(text: &[u8]) -> bool {
        let a = text.iter().filter(|&&byte| byte == b'a').count();
        let after_c = text
            .iter()
            .position(|&byte| byte == b'c')
            .is_some_and(|c| text[c..].contains(&b'b'));
        a >= 3 && after_c
    }

    /// `polish` ends where removing any one character loses the bug (1-minimal over
    /// characters), on texts from a fixed pseudo-random sequence.
    #[test]
    fn polish_ends_one_minimal_over_characters() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20 {
            let mut text = Vec::new();
            for _ in 0..60 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(b"abcxyz \n"[(state % 8) as usize]);
            }
            text.extend_from_slice(b"aaacb");
            let reducer = Reducer::new(text.clone()).pipeline("polish").unwrap();
            let result = reducer.run(shows_the_bug).unwrap().result;
            assert!(
                shows_the_bug(&result),
                "{:?}",
                String::from_utf8_lossy(&result)
            );
            for i in 0..result.len() {
                let mut less = result.clone();
                less.remove(i);
                assert!(
                    !shows_the_bug(&less),
                    "{:?} is not 1-minimal: without byte {i} it still shows the bug",
                    String::from_utf8_lossy(&result)
                );
            }
        }
    }

    /// `polish`'s later sweeps skip the deletions that failed with the same neighbourhood in
    /// the earlier ones, and a last sweep that skips nothing still ends it 1-minimal: `(` goes
    /// late in the first sweep, which makes `)` removable; the characters far from them are not
    /// tested again until that last sweep.
    #[test]
    fn polish_skips_what_failed_in_its_earlier_sweeps_and_ends_one_minimal() {
        let needed = "A.B.C.D.E.F.G.H.I.J.K.L.M.N";
        let shows = move |text: &[u8]| {
            let text = String::from_utf8_lossy(text);
            text.contains(needed) && (!text.contains('(') || text.contains(')'))
        };
        let reducer = Reducer::new(format!("( - ) {needed}"))
            .pipeline("polish")
            .unwrap();
        let finished = reducer.run(shows).unwrap();
        assert_eq!(finished.result, needed.as_bytes());
        assert!(finished.stats.recall_skips > 0, "{:?}", finished.stats);
    }
}
