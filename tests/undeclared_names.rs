//! The name check beside the syntax guard: where the test fails on a name left undeclared (as
//! compilers and interpreters do), candidates that drop a used name's last declaration are
//! judged without a test once enough of them failed, and the result is the same; where the test
//! does not care about names, they are all tested.

use whittle_core::Reducer;

/// A chain of functions, each calling the one before, the last one called by `boom`; unused
/// variables between them.
fn chain_program() -> String {
    let mut program = String::from("function f0() { return 0; }\n");
    for i in 1..12 {
        program.push_str(&format!("var unused{i} = {i};\n"));
        program.push_str(&format!("function f{i}() {{ return f{}(); }}\n", i - 1));
    }
    program.push_str("function boom() { return f11(); }\nboom();\n");
    program
}

/// Like an interpreter of these programs: the top level calls `boom`, and the calls from there
/// reach `f0` through declared functions (`function NAME() { return CALLEE(); }`); a call of an
/// undeclared function is an error.
fn crashes(text: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(text) else {
        return false;
    };
    let compact: String = text.split_whitespace().collect();
    let mut bodies = std::collections::HashMap::new();
    let mut rest = compact.as_str();
    let mut top_level_calls_boom = false;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("function") {
            let Some((name, after)) = after.split_once("(){return") else {
                return false;
            };
            let Some((body, after)) = after.split_once(";}") else {
                return false;
            };
            bodies.insert(name, body);
            rest = after;
        } else if let Some(after) = rest.strip_prefix("boom();") {
            top_level_calls_boom = true;
            rest = after;
        } else if let Some((_, after)) = rest.split_once(';') {
            rest = after;
        } else {
            return false;
        }
    }
    let mut called = "boom";
    for _ in 0..bodies.len() {
        match bodies.get(called) {
            Some(&"0") => return top_level_calls_boom && called == "f0",
            Some(body) => match body.strip_suffix("()") {
                Some(callee) => called = callee,
                None => return false,
            },
            // A call of an undeclared function.
            None => return false,
        }
    }
    false
}

#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn candidates_leaving_a_called_function_undeclared_are_judged_once_enough_failed() {
    let program = chain_program();
    assert!(crashes(program.as_bytes()));
    let finished = Reducer::new(program)
        .language("javascript")
        .run(crashes)
        .unwrap();
    let result = String::from_utf8(finished.result).unwrap();
    assert!(crashes(result.as_bytes()), "{result}");
    // The chain stays whole (the functions may be renamed); the variables go.
    assert!(!result.contains("var"), "{result}");
    assert_eq!(result.matches("function").count(), 13, "{result}");
    assert!(finished.stats.names_skips > 0, "{:?}", finished.stats);
}

#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn a_test_that_ignores_names_has_every_such_candidate_tested() {
    let program = chain_program();
    let calls_boom = |text: &[u8]| text.windows(7).any(|w| w == b"boom();");
    let finished = Reducer::new(program)
        .language("javascript")
        .run(calls_boom)
        .unwrap();
    assert_eq!(finished.result, b"boom();\n");
    assert_eq!(finished.stats.names_skips, 0, "{:?}", finished.stats);
}
