//! What a front end sees of a case of several files (its files, their states) and how it steers one.

use super::*;

/// Where a file of the case stands in the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    /// Its turn in this round has not come yet.
    Waiting,
    /// Its session runs now.
    Reducing,
    /// Its turn in this round is over (or it had nothing left to find).
    Done,
    /// The files phase removed it.
    Removed,
}

impl FileState {
    pub fn describe(self) -> &'static str {
        match self {
            FileState::Waiting => "waiting",
            FileState::Reducing => "reducing",
            FileState::Done => "done",
            FileState::Removed => "removed",
        }
    }
}

/// One file of a case as a front end lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileRow {
    /// Its path in the case.
    pub path: String,
    /// The language its pipeline parses it in (`None`: text without a grammar).
    pub language: Option<String>,
    /// Not text: kept or removed whole (or reduced as lines when asked).
    pub binary: bool,
    /// A symbolic link: never reduced, removed only whole.
    pub link: bool,
    /// Its size when the run started.
    pub start_bytes: usize,
    /// Its size now (0 once removed).
    pub bytes: usize,
    pub state: FileState,
}

/// Where a case stands: the round over the files and every file of the input, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CaseView {
    /// 1-based; 0 before the first round (the check of the whole set).
    pub round: u32,
    /// The files phase (ddmin over whole files) runs now.
    pub removing_files: bool,
    /// The row of the file being reduced now.
    pub current: Option<usize>,
    pub files: Vec<FileRow>,
}

impl CaseView {
    /// The bytes of the whole set now.
    pub fn bytes(&self) -> usize {
        self.files.iter().map(|file| file.bytes).sum()
    }

    /// The bytes of the whole set when the run started.
    pub fn start_bytes(&self) -> usize {
        self.files.iter().map(|file| file.start_bytes).sum()
    }
}

/// What a file's session is steered with between its stages.
pub struct SteeredFile<'a> {
    pub language: Option<&'static crate::tree::Language>,
    /// Its pins, kept for its later sessions too.
    pub pins: &'a Mutex<Pins>,
}

/// A front end steering a case run (a session, see `engine::session`): it shares the control
/// of every tester of the run, hears where the run is and applies the commands that interrupt
/// a stage (pins of the current file, a skipped stage). The run calls it from its own thread.
pub trait CaseSteering: Send + Sync {
    /// The control every tester of the run uses: pause, step, stop and the knobs hold across
    /// the files.
    fn control(&self) -> Arc<Control>;
    /// The starting set was found interesting; the reduction begins.
    fn checked(&self);
    /// Where the set stands changed (a round, a turn, the files phase).
    fn case_changed(&self, view: &CaseView);
    /// A tester starts work (the files phase, or a file's session): its statistics go to the
    /// front end.
    fn tester_started(&self, tester: &mut Tester);
    /// A file's session starts on `content` with `plan`; `pins` are the ranges kept for it.
    fn file_started(&self, content: &[u8], plan: &Plan, pins: &[Range<usize>]);
    /// The file being reduced has a new best; `pins` are its pins mapped onto it.
    fn accepted(&self, improvement: &Improvement<'_>, pins: &[Range<usize>]);
    /// A stage of the current file's pipeline starts.
    fn stage_started(&self, name: &str, index: usize, count: usize);
    /// A stage was interrupted by a command ([`Stop::Switched`]): applies the queued commands
    /// (to `file` when one is being reduced) and says where the pipeline resumes (a stage
    /// index), or why the run stops.
    fn steer(
        &self,
        tester: &Tester,
        file: Option<SteeredFile<'_>>,
        stage: usize,
        stage_name: &str,
    ) -> Result<usize, Stop>;
}
