//! What the model knows of a case of several files from the events: the whole set's size over
//! the tests (for the chart), where each file's turn began, whether whole files are being
//! removed (then the sizes of the accepted candidates are those of bundles, not of a file), and
//! which file's session the Configuration pane shows (it starts over with each file shown).

use super::{ChartMark, ConfigView, RunModel};

/// The whole set's course, as the events tell it.
#[derive(Clone, Debug, Default)]
pub struct CaseSeries {
    /// (tests run, bytes of the whole set) at the start and after every change.
    pub sizes: Vec<(u64, usize)>,
    /// A mark where each file's turn began.
    pub marks: Vec<ChartMark>,
    /// The size of the set at the start is the first point.
    started: bool,
    /// The bytes of the other files while one is reduced (`None`: whole files are being
    /// removed, or no file's turn began yet).
    others: Option<usize>,
    /// The file whose session the Configuration pane shows (`None`: the files phase, or
    /// nothing yet).
    pub file: Option<String>,
}

impl RunModel {
    /// A file's turn begins: its own size series starts afresh, the whole set's goes on.
    pub(super) fn file_started(&mut self, path: &str, size: usize, others: usize) {
        self.start_case_view(Some(path));
        self.sizes = vec![(self.tests, size)];
        self.marks.clear();
        // The snapshot shows the file from now on: a new version of the best.
        self.version += 1;
        let tests = self.tests;
        let series = self.case.get_or_insert_with(CaseSeries::default);
        series.others = Some(others);
        series.sizes.push((tests, size + others));
        series.marks.push(ChartMark {
            tests,
            label: path.to_owned(),
            stage: true,
        });
    }

    /// Whole files are being removed: the sizes that follow are bundles'. The snapshot shows
    /// the set now: a new version of the best.
    pub(super) fn files_phase_started(&mut self) {
        self.start_case_view(None);
        self.version += 1;
        self.case.get_or_insert_with(CaseSeries::default).others = None;
    }

    /// The panes show the file at `path` (`None`: the set, while whole files are removed):
    /// when it is not the one the Configuration pane showed, the pane starts over (what it
    /// showed was another file's session, or the files phase) with the place the snapshot
    /// tells, until the file's own events tell more.
    pub fn show_case_file(&mut self, path: Option<&str>) {
        let shown = self.case.as_ref().and_then(|series| series.file.as_deref());
        if self.case.is_some() && shown == path {
            return;
        }
        self.start_case_view(path);
    }

    /// The Configuration pane starts over on the session of the file at `path` (`None`: the
    /// files phase).
    fn start_case_view(&mut self, path: Option<&str>) {
        self.case.get_or_insert_with(CaseSeries::default).file = path.map(str::to_owned);
        self.view = ConfigView::default();
        self.next = None;
        self.current = None;
    }

    /// Whether a candidate accepted now is a set of whole files (not a file's best).
    pub(super) fn removing_files(&self) -> bool {
        self.case
            .as_ref()
            .is_some_and(|series| series.others.is_none())
    }

    /// The file being reduced has a new best of `size` bytes.
    pub(super) fn case_accepted(&mut self, size: usize) {
        let tests = self.tests;
        if let Some(series) = &mut self.case
            && let Some(others) = series.others
        {
            series.sizes.push((tests, size + others));
        }
    }

    /// The files phase accepted a set of `size` bytes: a point of the whole set's course.
    pub(super) fn files_kept(&mut self, size: usize) {
        let tests = self.tests;
        self.case
            .get_or_insert_with(CaseSeries::default)
            .sizes
            .push((tests, size));
    }

    /// The whole set's size at the start (the snapshot tells it): the first point.
    pub fn start_case(&mut self, bytes: usize) {
        let series = self.case.get_or_insert_with(CaseSeries::default);
        if !series.started {
            series.sizes.insert(0, (0, bytes));
            series.started = true;
        }
    }
}
