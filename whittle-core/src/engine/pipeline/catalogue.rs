//! The pipelines offered: Table 7.1 of the dissertation, the catalogue a session switches to,
//! and the listing of `whittle algorithms`.

use crate::algorithms::hdd::Algorithm;
use crate::algorithms::passes::TextStage;
use crate::algorithms::rewrite::Rewrite;
use crate::params::BeliefModel;
use crate::text::wrap::{wrap_pieces, wrap_words};
use unicode_width::UnicodeWidthStr;

use super::{
    DEFAULT_TEXT_PIPELINE, DEFAULT_TREE_PIPELINE, FAST_TEXT_PIPELINE, FAST_TREE_PIPELINE, Pipeline,
    Stage,
};

/// Table 7.1 of the dissertation: per HDD variant (rows), the variant alone, hoisting as
/// preprocessing, hoisting interlaced, and both. (The coarse rows are coarse throughout.)
pub const TABLE_7_1: [[&str; 4]; 4] = [
    ["hdd", "hoist+hdd", "hddh", "hoist+hddh"],
    ["hddr", "hoistr+hddr", "hddhr", "hoistr+hddhr"],
    [
        "coarse-hdd",
        "coarse-hoist+coarse-hdd",
        "coarse-hddh",
        "coarse-hoist+coarse-hddh",
    ],
    [
        "coarse-hddr",
        "coarse-hoistr+coarse-hddr",
        "coarse-hddhr",
        "coarse-hoistr+coarse-hddhr",
    ],
];

/// The column titles of [`TABLE_7_1`].
pub const TABLE_7_1_COLUMNS: [&str; 4] = [
    "alone",
    "preprocessing",
    "interlacing",
    "preprocessing & interlacing",
];

/// The sixteen pipelines of Table 7.1, row by row.
pub fn table_7_1() -> Vec<Pipeline> {
    TABLE_7_1
        .iter()
        .flatten()
        .filter_map(|name| name.parse().ok())
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineInfo {
    /// What `-a` and a session's switch take.
    pub name: String,
    pub description: String,
}

/// The pipelines offered for switching: the ddmin passes, each tree algorithm alone, and the
/// sixteen pipelines of Table 7.1 (tree entries only when `tree` is true, i.e. the input's
/// language is known).
pub fn catalogue(tree: bool) -> Vec<PipelineInfo> {
    let mut entries: Vec<PipelineInfo> = [
        ("ddmin", "ddmin over the --atoms passes (default lines, then characters), each to its fixed point"),
        ("ddmin:line", "ddmin over lines, to its fixed point (DDMIN*)"),
        ("ddmin:char", "ddmin over characters, to its fixed point"),
        ("ddmin:token", "ddmin over tokens (words and punctuation), to its fixed point"),
        ("ddmin:block", "ddmin over blocks of lines (nested by brackets and indentation), level by level"),
        ("probdd:line", "ProbDD over lines (a probability per line; Wang et al. 2021)"),
        ("cdd:line", "CDD over lines (a counter per line; Zhang et al. 2025)"),
        ("cdd:token", "CDD over tokens"),
    ]
    .into_iter()
    .map(|(name, description)| PipelineInfo {
        name: name.into(),
        description: description.into(),
    })
    .collect();
    let text_default = PipelineInfo {
        name: DEFAULT_TEXT_PIPELINE.into(),
        description: "the default for other inputs: blocks of lines, lines and the text stages to a fixed point"
            .into(),
    };
    entries.push(text_default);
    entries.push(PipelineInfo {
        name: FAST_TEXT_PIPELINE.into(),
        description: "--fast for other inputs: blocks of lines, then lines, rerun while either removes something".into(),
    });
    // `inline` reads the parse tree: only where there is one.
    for stage in TextStage::ALL
        .into_iter()
        .filter(|&stage| tree || !stage.needs_grammar())
    {
        entries.push(PipelineInfo {
            name: stage.name().into(),
            description: stage.description().into(),
        });
    }
    if tree {
        add_tree_pipelines(&mut entries);
    }
    entries
}

/// The pipelines that read the parse tree: the defaults first, then each tree algorithm and
/// rewrite alone, then the pipelines of Table 7.1 not listed yet.
fn add_tree_pipelines(entries: &mut Vec<PipelineInfo>) {
    entries.insert(
        0,
        PipelineInfo {
            name: DEFAULT_TREE_PIPELINE.into(),
            description: "the default for known languages (see docs/benchmarks.md)".into(),
        },
    );
    entries.insert(
        1,
        PipelineInfo {
            name: FAST_TREE_PIPELINE.into(),
            description:
                "--fast: the tree pruned by chunk sweeps, then lines; no text stages, loops' \
                 conditions and updates kept, a tighter timeout (a fraction of the tests)"
                    .into(),
        },
    );
    for algorithm in Algorithm::all() {
        entries.push(PipelineInfo {
            name: algorithm.name().into(),
            description: format!("{} ({})", algorithm.description(), algorithm.figure()),
        });
    }
    for rewrite in Rewrite::all() {
        entries.push(PipelineInfo {
            name: rewrite.name().into(),
            description: rewrite.description().into(),
        });
    }
    for (row, names) in TABLE_7_1.iter().enumerate() {
        for (column, name) in names.iter().enumerate() {
            // Algorithms alone are listed above (the first column, and HDDH's interlacing).
            if entries.iter().any(|entry| entry.name == *name) {
                continue;
            }
            entries.push(PipelineInfo {
                name: (*name).into(),
                description: format!(
                    "{}: Table 7.1, row {}, {}",
                    paper_name(name),
                    row + 1,
                    TABLE_7_1_COLUMNS[column]
                ),
            });
        }
    }
}

/// The width `whittle algorithms` lays its listing out for, in display columns.
pub const LISTING_WIDTH: usize = 80;

/// One row of the listing: a name, its title and where it comes from, and what it does.
struct ListingRow {
    name: String,
    title: String,
    source: String,
    description: String,
}

impl ListingRow {
    fn new(name: &str, title: &str, source: &str, description: &str) -> Self {
        ListingRow {
            name: name.into(),
            title: title.into(),
            source: source.into(),
            description: description.into(),
        }
    }
}

/// Rows as columns sized to their widest entry: the name, title and source on one line, what
/// it does below, under the title, broken into lines of at most `width` columns.
fn push_rows(out: &mut String, rows: &[ListingRow], width: usize) {
    let column =
        |cell: fn(&ListingRow) -> &str| rows.iter().map(|row| cell(row).width()).max().unwrap_or(0);
    let names = column(|row| &row.name);
    let titles = column(|row| &row.title);
    let indent = 2 + names + 2;
    for row in rows {
        let head = format!(
            "  {}  {}  {}",
            pad(&row.name, names),
            pad(&row.title, titles),
            row.source
        );
        out.push_str(head.trim_end());
        out.push('\n');
        push_wrapped(out, &row.description, indent, width);
    }
}

/// `text` padded with spaces to `width` display columns.
fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// `text` broken into lines of at most `width` columns, each indented by `indent`.
fn push_wrapped(out: &mut String, text: &str, indent: usize, width: usize) {
    for line in wrap_words(text, width.saturating_sub(indent).max(20)) {
        out.push_str(&" ".repeat(indent));
        out.push_str(&line);
        out.push('\n');
    }
}

/// A pipeline broken after its `+`s into lines of at most `width` columns, indented by two.
fn push_pipeline(out: &mut String, pipeline: &str) {
    for line in wrap_pieces(pipeline.split_inclusive('+'), "", LISTING_WIDTH - 2) {
        out.push_str("  ");
        out.push_str(&line);
        out.push('\n');
    }
}

/// `whittle algorithms`: every algorithm and stage, the sixteen pipelines of Table 7.1 and the
/// defaults, in lines of at most [`LISTING_WIDTH`] columns.
pub fn algorithms_listing() -> String {
    let width = LISTING_WIDTH;
    let mut out = String::new();
    out.push_str("Algorithms (each runs to its fixed point unless --no-fixpoint):\n");
    push_rows(&mut out, &algorithm_rows(), width);
    out.push_str("\nRewrite stages (each to its fixed point; best after a tree algorithm):\n");
    let rewrites: Vec<ListingRow> = Rewrite::all()
        .iter()
        .map(|rewrite| ListingRow::new(rewrite.name(), rewrite.title(), "", rewrite.description()))
        .collect();
    push_rows(&mut out, &rewrites, width);
    out.push_str("\nText stages (over tokens, each to its fixed point; some need the grammar):\n");
    push_text_stages(&mut out, width);
    out.push('\n');
    for line in wrap_words(
        "Pipelines join stages with `+` and run them in order; `ddmin` (or `ddmin:token`, \
         `ddmin:line,char`, ...) may finish at text level. `(a+b+c)*` reruns its stages until \
         none changes anything (the most productive per test first; a stage that changed \
         nothing last time is deferred after 25 failed tests in a row).",
        width,
    ) {
        out.push_str(&line);
        out.push('\n');
    }
    push_table_7_1(&mut out);
    out.push_str("\nDefault when the input's language is known:\n");
    push_pipeline(&mut out, DEFAULT_TREE_PIPELINE);
    out.push_str("else:\n");
    push_pipeline(&mut out, DEFAULT_TEXT_PIPELINE);
    out.push_str("With --fast:\n");
    push_pipeline(&mut out, FAST_TREE_PIPELINE);
    out.push_str("else:\n");
    push_pipeline(&mut out, FAST_TEXT_PIPELINE);
    out
}

/// The listing's rows of the list minimizers and the tree algorithms.
fn algorithm_rows() -> Vec<ListingRow> {
    let mut algorithms = vec![
        ListingRow::new(
            "ddmin",
            "DDMIN*",
            "Fig. 2.1, ch. 5",
            "line/char/token passes (--atoms), each ddmin^ν",
        ),
        ListingRow::new(
            "probdd",
            "ProbDD",
            "Wang et al., FSE 2021",
            "line/char/token passes: a probability per unit",
        ),
        ListingRow::new(
            "cdd",
            "CDD",
            "Zhang et al., ICSE 2025",
            "line/char/token passes: a counter per unit",
        ),
    ];
    algorithms.extend(Algorithm::all().map(|algorithm| {
        ListingRow::new(
            algorithm.name(),
            algorithm.title(),
            algorithm.figure(),
            algorithm.description(),
        )
    }));
    algorithms
}

/// The text stages and `polish`, each name with its description wrapped beside it.
fn push_text_stages(out: &mut String, width: usize) {
    let mut stages: Vec<(&str, &str)> = TextStage::ALL
        .iter()
        .map(|stage| (stage.name(), stage.description()))
        .collect();
    stages.push((
        "polish",
        "a chunk sweep over characters (1-minimal), skipped when the tests are too slow for it",
    ));
    let names = stages
        .iter()
        .map(|(name, _)| name.width())
        .max()
        .unwrap_or(0);
    for (name, description) in stages {
        let mut lines = wrap_words(description, width - (2 + names + 2)).into_iter();
        out.push_str(&format!(
            "  {}  {}\n",
            pad(name, names),
            lines.next().unwrap_or_default()
        ));
        for line in lines {
            out.push_str(&format!("{}{line}\n", " ".repeat(2 + names + 2)));
        }
    }
}

/// The sixteen pipelines of Table 7.1, column by column, each with the dissertation's name.
fn push_table_7_1(out: &mut String) {
    out.push_str(
        "\nThe sixteen of Table 7.1, by column (rows: HDD, HDD^r and their coarse forms):\n",
    );
    let pipelines = TABLE_7_1
        .iter()
        .flatten()
        .map(|p| p.width())
        .max()
        .unwrap_or(0);
    for (column, title) in TABLE_7_1_COLUMNS.iter().enumerate() {
        out.push_str(&format!("  {title}\n"));
        for row in TABLE_7_1 {
            let pipeline = row[column];
            out.push_str(&format!(
                "    {}  {}\n",
                pad(pipeline, pipelines),
                paper_name(pipeline)
            ));
        }
    }
}

/// The dissertation's name of a pipeline (`Hoist* + HDDH*`).
fn paper_name(pipeline: &str) -> String {
    let Ok(pipeline) = pipeline.parse::<Pipeline>() else {
        return String::new();
    };
    let titles: Vec<String> = pipeline
        .stages()
        .iter()
        .map(|stage| match stage {
            Stage::Tree(algorithm) => algorithm.title().to_owned(),
            Stage::Rewrite(rewrite) => rewrite.title().to_owned(),
            Stage::Ddmin(_) => "DDMIN*".to_owned(),
            Stage::Belief(BeliefModel::ProbDd, _) => "ProbDD*".to_owned(),
            Stage::Belief(BeliefModel::Cdd, _) => "CDD*".to_owned(),
            other => other.to_string(),
        })
        .collect();
    titles.join(" + ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_names_pipelines_that_parse() {
        let with_trees = catalogue(true);
        assert!(with_trees.len() > catalogue(false).len());
        for entry in with_trees {
            assert!(entry.name.parse::<Pipeline>().is_ok(), "{}", entry.name);
        }
        assert!(
            catalogue(false)
                .iter()
                .all(|e| !e.name.parse::<Pipeline>().unwrap().needs_tree())
        );
    }

    #[test]
    fn the_catalogue_lists_each_pipeline_once() {
        let entries = catalogue(true);
        for (i, entry) in entries.iter().enumerate() {
            assert!(
                entries[i + 1..]
                    .iter()
                    .all(|other| other.name != entry.name),
                "{} is listed twice",
                entry.name
            );
        }
        for name in TABLE_7_1.iter().flatten() {
            assert!(entries.iter().any(|entry| entry.name == *name), "{name}");
        }
    }

    #[test]
    fn table_7_1_has_sixteen_distinct_pipelines() {
        let all = table_7_1();
        assert_eq!(all.len(), 16);
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b != a), "{a} twice");
            assert!(a.needs_tree());
        }
        for default in [
            DEFAULT_TREE_PIPELINE,
            DEFAULT_TEXT_PIPELINE,
            FAST_TREE_PIPELINE,
            FAST_TEXT_PIPELINE,
        ] {
            let pipeline = default.parse::<Pipeline>().unwrap();
            assert_eq!(pipeline.to_string(), default);
        }
        assert!(
            !DEFAULT_TEXT_PIPELINE
                .parse::<Pipeline>()
                .unwrap()
                .needs_tree()
        );
        let listing = algorithms_listing();
        for name in TABLE_7_1.iter().flatten() {
            assert!(listing.contains(name), "{name} missing");
        }
        assert!(listing.contains("Coarse Hoist^r* + Coarse HDDH^r*"));
    }

    #[test]
    fn the_listing_fits_80_columns_with_its_titles_in_one_column() {
        let listing = algorithms_listing();
        for line in listing.lines() {
            assert!(
                line.width() <= LISTING_WIDTH,
                "{} columns: {line}",
                line.width()
            );
        }
        // Every algorithm's title starts in the same column, the longest included.
        let title_columns: Vec<usize> = Algorithm::all()
            .map(|algorithm| {
                let line = listing
                    .lines()
                    .find(|line| line.split_whitespace().next() == Some(algorithm.name()))
                    .unwrap_or_else(|| panic!("{} missing", algorithm.name()));
                line.find(algorithm.title())
                    .expect("its title is on its line")
            })
            .collect();
        assert!(
            title_columns.windows(2).all(|pair| pair[0] == pair[1]),
            "{listing}"
        );
        assert!(listing.contains("coarse-hddhr-probdd  Coarse HDDH^r* with ProbDD  Wang"));
        // The default pipeline, broken after its `+`s, is whole again when joined.
        let default: String = listing
            .lines()
            .skip_while(|line| !line.starts_with("Default when"))
            .skip(1)
            .take_while(|line| line.starts_with("  "))
            .map(str::trim)
            .collect();
        assert_eq!(default, DEFAULT_TREE_PIPELINE);
    }
}
