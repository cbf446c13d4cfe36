//! The built-in examples' tests and the LocalizedPi model against verdicts of javac and java.

use super::java_model::interesting;
use super::*;
use crate::engine::reducer::Reducer;
use crate::text::atoms::non_whitespace_chars;

fn java_available() -> bool {
    Language::by_name("java").is_ok_and(|java| java.is_available())
}

#[test]
fn the_embedded_localized_pi_is_the_example_s_file() {
    let file = include_str!("../../../../examples/localized-pi-java/LocalizedPi.java");
    assert_eq!(LOCALIZED_PI, file);
}

/// A LocalizedPi reduced by hand: `decSeparator`'s body, then `main`'s.
fn variant(separator: &str, main: &str) -> String {
    format!(
        "class A {{\n    static String decSeparator(String locale) {{\n{separator}\n    }}\n    \
         public static void main(String[] args) {{\n{main}\n    }}\n}}\n"
    )
}

/// Candidates with the verdict of the real test (`examples/localized-pi-java/oracle.sh`,
/// javac and java 17), each for one rule of the model. The model also gave the real verdict
/// on every one of the 507 candidates the two pipelines judged with the real test.
#[test]
fn the_localized_pi_model_gives_the_verdicts_of_javac_and_java() {
    if !java_available() {
        return;
    }
    let check = "        if (locale.equals(\"en\")) return \"\";";
    let throw = "        throw new RuntimeException();";
    let both = format!("{check}\n{throw}");
    let call = "        String A = decSeparator(args[0]);";
    let accepted = variant(&both, call);
    let cases = [
        ("the hoisted result", accepted.clone(), true),
        (
            "unreachable statement",
            variant(&format!("        return \"\";\n{throw}"), call),
            false,
        ),
        ("missing return statement", variant(check, call), false),
        (
            "a condition not boolean",
            variant(&both.replace("locale.equals(\"en\")", "locale"), call),
            false,
        ),
        (
            "too few arguments",
            variant(&both, &call.replace("args[0]", "")),
            false,
        ),
        (
            "a variable without a value",
            variant(
                &both,
                "        String A;\n        System.out.println(A);\n        decSeparator(args[0]);",
            ),
            false,
        ),
        (
            "throws with en too",
            variant(&both.replace("\"en\"", "\"\""), call),
            false,
        ),
        (
            "never throws",
            variant(&format!("{check}\n        return \"\";"), call),
            false,
        ),
        (
            "the method not called",
            variant(&both, "        String A = \"\";"),
            false,
        ),
        (
            "an undeclared name",
            variant(&both, &call.replace("args", "B")),
            false,
        ),
        (
            "main not public",
            accepted.replace("public static", "static"),
            false,
        ),
        ("the input", LOCALIZED_PI.to_string(), true),
    ];
    for (what, text, real) in cases {
        assert_eq!(interesting(text.as_bytes()), real, "{what}:\n{text}");
    }
}

const PRUNED_BY_JAVAC: &str = r#"class A {
    static String decSeparator(String locale) {
        if (locale.equals("en")) {
            return "";
        }
        throw new RuntimeException();
    }
    static String formatParts(String intPart, String A, String decSep) {
        return A.concat(decSep);
    }
    public static void main(String[] args) {
        String A = formatParts("", "", decSeparator(args[0]));
    }
}
"#;

const HOISTED_BY_JAVAC: &str = r#"class A {
    static String decSeparator(String locale) {
        if (locale.equals("en")) return "";
        throw new RuntimeException();
    }
    public static void main(String[] args) {
        String A = decSeparator(args[0]);
    }
}
"#;

/// The result of `pipeline` on LocalizedPi with the model as the test.
fn reduce_localized_pi(pipeline: &str) -> String {
    let reduced = Reducer::new(LOCALIZED_PI)
        .language("java")
        .pipeline(pipeline)
        .unwrap()
        .run(interesting)
        .unwrap();
    String::from_utf8(reduced.result).unwrap()
}

#[test]
fn pruning_keeps_format_parts_and_hoisting_first_removes_it() {
    if !java_available() {
        return;
    }
    assert!(interesting(LOCALIZED_PI.as_bytes()));
    let pruned = reduce_localized_pi("hddr");
    let hoisted = reduce_localized_pi("hoistr+hddr");
    assert!(pruned.contains("formatParts"), "{pruned}");
    assert!(!hoisted.contains("formatParts"), "{hoisted}");
    // The results of the real test (javac and java 17) with `whittle reduce -a hddr` and
    // `-a hoistr+hddr`: the model leads the reductions to the same files.
    assert_eq!(pruned, PRUNED_BY_JAVAC);
    assert_eq!(hoisted, HOISTED_BY_JAVAC);
    let counts =
        [LOCALIZED_PI, &pruned, &hoisted].map(|text| non_whitespace_chars(text.as_bytes()));
    // The paper's counts are 446 -> 359 and 186: its file is longer (see the README).
    assert_eq!(counts, [385, 278, 173]);
}

#[test]
fn descriptions_read_as_one_line_and_rivals_parse() {
    for example in examples() {
        assert!(
            !example.description.contains("  "),
            "{}: {:?}",
            example.name,
            example.description
        );
        if let Some(rival) = example.rival {
            assert!(example.rival_settings().is_some(), "{rival}");
        }
    }
}
