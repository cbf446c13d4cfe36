//! Reduces a small C program with a test written in Rust: the program must still define a
//! function `crash` that is called from `main`. Run it with
//! `cargo run -p whittle-core --example reduce_bytes`.

use whittle_core::Reducer;

/// The input: `crash` among functions and declarations that do not matter.
const INPUT: &str = "\
#include <stdio.h>

static int counter = 0;

int square(int x) {
    return x * x;
}

int crash(int depth) {
    counter += square(depth);
    return counter / (depth - depth);
}

int main(void) {
    int total = 0;
    for (int i = 0; i < 10; i++) {
        total += square(i);
    }
    printf(\"%d\\n\", total);
    return crash(total);
}
";

/// Interesting: `crash` is still defined and still called from `main`.
fn crashes(candidate: &[u8]) -> bool {
    let text = String::from_utf8_lossy(candidate);
    let Some(main) = text.find("main") else {
        return false;
    };
    text[..main].contains("crash(") && text[main..].contains("crash(")
}

/// Reduces [`INPUT`]: in C with the default tree pipeline when the C grammar is compiled in,
/// else by ddmin over lines and characters.
fn reduce() -> Vec<u8> {
    let reducer = Reducer::new(INPUT);
    let reducer = if cfg!(feature = "lang-c") {
        reducer.language("c")
    } else {
        reducer
    };
    let finished = reducer.run(crashes).expect("the input is interesting");
    finished.result
}

fn main() {
    let result = reduce();
    println!(
        "{} bytes -> {} bytes:\n{}",
        INPUT.len(),
        result.len(),
        String::from_utf8_lossy(&result)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_result_still_crashes_and_is_smaller() {
        let result = super::reduce();
        assert!(super::crashes(&result));
        assert!(
            result.len() < super::INPUT.len() / 4,
            "{}",
            String::from_utf8_lossy(&result)
        );
    }
}
