//! Helpers of the tests of `whittle batch`: a campaign of 20 inputs, some not interesting, and
//! the check of its summary.

use super::safety::Work;

/// One input of the campaign.
pub struct Input {
    pub name: String,
    pub content: String,
    /// Whether it holds the needle the test looks for.
    pub interesting: bool,
}

/// Writes 20 inputs into `in/` and the test `needle.sh`: every fourth input holds no needle
/// (not interesting).
pub fn batch_inputs(work: &Work) -> Vec<Input> {
    std::fs::create_dir(work.path("in")).unwrap();
    work.script("needle.sh", "grep -q needle \"$1\"");
    (0..20)
        .map(|i| {
            let interesting = i % 4 != 3;
            let content = if interesting {
                format!("a{i}\nb\nneedle {i}\nc\n")
            } else {
                format!("a{i}\nb\nc\n")
            };
            let name = format!("case{i:02}.txt");
            work.file(&format!("in/{name}"), &content);
            Input {
                name,
                content,
                interesting,
            }
        })
        .collect()
}

/// `batch in -o out --work-dir campaign OPTIONS -- TEST`: the inputs of `in/` reduced into
/// `out/`.
pub fn batch_args<'a>(options: &[&'a str], test: &'a str) -> Vec<&'a str> {
    let mut args = vec!["batch", "in", "-o", "out", "--work-dir", "campaign"];
    args.extend(options);
    args.extend(["--", test]);
    args
}

/// The campaign's `campaign/summary.json`.
pub fn summary(work: &Work) -> serde_json::Value {
    work.json("campaign/summary.json")
}

/// The status of each reduction of a summary, in order.
pub fn statuses(summary: &serde_json::Value) -> Vec<&str> {
    summary["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect()
}

/// Checks `campaign/summary.json` against what the inputs are: each interesting input reduced
/// to `needle` in `out/`, the others not interesting with nothing written; the inputs as they
/// were.
pub fn check_batch_summary(work: &Work, inputs: &[Input], executor: &str) {
    let summary = summary(work);
    assert_eq!(summary["executor"], executor);
    let reductions = summary["reductions"].as_array().unwrap();
    assert_eq!(reductions.len(), inputs.len());
    for (input, reduction) in inputs.iter().zip(reductions) {
        let path = work.path(&format!("in/{}", input.name));
        assert_eq!(reduction["input"].as_str().unwrap(), path.to_str().unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            input.content,
            "the input is as it was"
        );
        assert_eq!(reduction["size_before"], input.content.len(), "{reduction}");
        let output = work.path(&format!("out/{}", input.name));
        assert_eq!(
            reduction["output"].as_str().unwrap(),
            output.to_str().unwrap()
        );
        if input.interesting {
            assert_eq!(reduction["status"], "reduced", "{reduction}");
            assert_eq!(reduction["size_after"], 6, "{reduction}");
            assert!(reduction["tests"].as_u64().unwrap() > 0, "{reduction}");
            assert_eq!(reduction["exit_code"], 0, "{reduction}");
            assert_eq!(std::fs::read_to_string(&output).unwrap(), "needle");
        } else {
            assert_eq!(reduction["status"], "not_interesting", "{reduction}");
            assert!(reduction["size_after"].is_null(), "{reduction}");
            assert!(reduction["tests"].is_null(), "{reduction}");
            assert_eq!(reduction["exit_code"], 2, "{reduction}");
            assert!(!output.exists(), "nothing is written for {}", input.name);
        }
    }
}
