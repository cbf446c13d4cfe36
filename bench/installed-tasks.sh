#!/usr/bin/env bash
# Makes reduction tasks from code that the machine's own packages install (nothing of it is in
# the repository): one folder per task under OUT-DIR, each an input with one planted bug and an
# executable oracle.sh, the shape bench/peers.sh reads. A task whose tool or source is missing
# is skipped with a note on stderr.
#   bench/installed-tasks.sh OUT-DIR
#   REDUCERS="whittle shrinkray" CAP=300 bench/peers.sh OUT-DIR/*/
# Needs: Ruby 3.1 (Debian's `ruby`: its standard library under /usr/lib/ruby/3.1.0) for the two
# Ruby tasks; node and the npm package typescript 5 (TSC_PACKAGE, default
# /opt/tsc/node_modules/typescript) for the large JavaScript task.
#   rb-ruby-tsort-nomethoderror  tsort.rb, 14.8 KB: a guard dropped (`child_id &&`), so a
#       finished component's nil id meets `<`; a demo sorts a graph at the end.
#   rb-ruby-set-keyerror         set.rb, 26 KB: `include?` uses `Hash#fetch`, so asking for
#       a missing element raises KeyError through `&`.
#   js-node-tsc-large            typescript's lib/_tsc.js, 6.2 MB: the compiler's message lookup
#       reads a field that does not exist, so reporting any diagnostic dies with a TypeError;
#       the test compiles a one-line file with a type error.
#   php-glob-typeerror           Glob.php of the Google Cloud SDK's App Engine PHP runtime
#       (PHP_GLOB), 9.5 KB: brace expansion merges a string instead of an array, so a
#       pattern with braces dies with array_merge's TypeError (needs `php`).
#   llvm-verify-dominance        tree-sitter's lib.c (the crate in ~/.cargo, TREE_SITTER_SRC)
#       compiled to LLVM IR by clang 14 at -O1, 3.1 MB: in ts_node_child_count a comparison
#       reads a value defined in a later block, which LLVM 14's verifier (opt-14) reports;
#       a text without a grammar here (needs clang-14 and opt-14).
#   sql-postgres-swapped-args    PostgreSQL 15's information_schema.sql (PG_SHARE), 115 KB,
#       its schema renamed: the `columns` view passes _pg_char_max_length its two arguments
#       swapped, so the server (single-user mode, on a fresh copy of a cluster that initdb made
#       in the task's folder, run as the user `postgres`) finds no such function (needs
#       PostgreSQL 15's server binaries, PG_BIN, and running as root).
#   sql-sqlite-nested-function   made here (python3 and sqlite3), 13 KB: fifty tables with
#       rows, twenty-five queries with nested expressions, and a query of two common table
#       expressions whose inner subquery calls a function SQLite does not have.
#   java-javac-jdk-arrays        java/util/Arrays.java of a newer JDK's src.zip (JDK_SRC_ZIP,
#       default Temurin 25's), 392 KB, compiled into java.base by the installed javac (17:
#       JAVAC): its hashCode helpers call ArraysSupport.hashCode(a, from, to, seed), which 17
#       lacks, so javac finds only Object's hashCode() (no bug planted: a version mismatch).
#   json-python-large-list       made here (python3 only), 8.1 MB: a catalogue of 30,000 items,
#       one of them holding {"bad": 42} deep inside; the test loads it with Python's json and
#       looks for that object (a long list: each element may be hoisted into its place).
#   rust-rustc-table-entry       termwiz's nerdfonts_data.rs (the crate in ~/.cargo,
#       TERMWIZ_SRC), 813 KB: a table of 10,753 (name, char) entries, one given a string, which
#       rustc (metadata only) reports as E0308 (an array's entries in Rust's grammar).
#   py-python-segment-tuple      pip's vendored idna/uts46data.py (IDNA_UTS46), 206 KB: 82
#       functions return segments of a data table that the module concatenates; one returns a
#       tuple, so running it dies with a TypeError.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
out=${1:?usage: bench/installed-tasks.sh OUT-DIR}
mkdir -p "$out"
ruby_lib=${RUBY_LIB:-/usr/lib/ruby/3.1.0}
tsc_package=${TSC_PACKAGE:-/opt/tsc/node_modules/typescript}
tree_sitter_src=${TREE_SITTER_SRC:-$(ls -d "$HOME"/.cargo/registry/src/*/tree-sitter-0.2* 2>/dev/null | tail -1)}
pg_share=${PG_SHARE:-/usr/share/postgresql/15}
jdk_src_zip=${JDK_SRC_ZIP:-/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip}
javac=${JAVAC:-javac}
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
php_glob=${PHP_GLOB:-/usr/lib/google-cloud-sdk/platform/google_appengine/php/sdk/google/appengine/runtime/Glob.php}
termwiz_src=${TERMWIZ_SRC:-$(ls -d "$HOME"/.cargo/registry/src/*/termwiz-0.2* 2>/dev/null | tail -1)}
idna_uts46=${IDNA_UTS46:-/usr/lib/python3/dist-packages/pip/_vendor/idna/uts46data.py}

# plant FILE OLD NEW: replaces the one occurrence of OLD in FILE by NEW, or fails.
plant() {
    python3 - "$@" <<'EOF'
import sys
path, old, new = sys.argv[1:4]
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    sys.exit(f"{path}: expected one occurrence of {old!r}, found {text.count(old)}")
open(path, "w", encoding="utf-8").write(text.replace(old, new))
EOF
}

# oracle DIR TOOL-COMMAND MESSAGE: an oracle that runs the command on the candidate ($1) and is
# interesting while its output holds MESSAGE.
oracle() {
    {
        echo '#!/bin/bash'
        printf 'out=$(timeout 10 %q "$1" 2>&1)\n' "$2"
        printf 'grep -qF -- %q <<<"$out"\n' "$3"
    } >"$1/oracle.sh"
    chmod +x "$1/oracle.sh"
}

if command -v ruby >/dev/null && [ -f "$ruby_lib/tsort.rb" ]; then
    task=$out/rb-ruby-tsort-nomethoderror
    mkdir -p "$task"
    cp "$ruby_lib/tsort.rb" "$task/tsort.rb"
    plant "$task/tsort.rb" "minimum_id = child_id if child_id && child_id < minimum_id" \
        "minimum_id = child_id if child_id < minimum_id"
    cat >>"$task/tsort.rb" <<'EOF'

class Hash
  include TSort
  alias tsort_each_node each_key
  def tsort_each_child(node, &block)
    fetch(node).each(&block)
  end
end
p({1=>[2, 3], 2=>[3], 3=>[], 4=>[]}.tsort)
EOF
    oracle "$task" ruby "undefined method \`<' for nil:NilClass (NoMethodError)"

    task=$out/rb-ruby-set-keyerror
    mkdir -p "$task"
    cp "$ruby_lib/set.rb" "$task/set.rb"
    plant "$task/set.rb" $'  def include?(o)\n    @hash[o]\n' $'  def include?(o)\n    @hash.fetch(o)\n'
    cat >>"$task/set.rb" <<'EOF'

tags = Set.new(%w[ruby set demo])
wanted = Set["ruby", "perl"]
puts "overlap: #{(tags & wanted).to_a.inspect}"
puts "subset: #{wanted.subset?(tags)}"
EOF
    oracle "$task" ruby 'key not found: "perl" (KeyError)'
else
    echo "installed-tasks: no Ruby 3.1 standard library at $ruby_lib: the Ruby tasks are skipped" >&2
fi

if command -v php >/dev/null && [ -f "$php_glob" ]; then
    task=$out/php-glob-typeerror
    mkdir -p "$task"
    cp "$php_glob" "$task/glob.php"
    plant "$task/glob.php" '$result = array_merge($result, $exp);' \
        '$result = array_merge($result, $exp[0]);'
    cat >>"$task/glob.php" <<'EOF'

var_dump(Glob::doGlob('/nonexistent/{a,b}*.txt', GLOB_BRACE));
EOF
    oracle "$task" php 'array_merge(): Argument #2 must be of type array, string given'
else
    echo "installed-tasks: no php or no $php_glob: the PHP task is skipped" >&2
fi

if command -v node >/dev/null && [ -f "$tsc_package/lib/_tsc.js" ]; then
    task=$out/js-node-tsc-large
    mkdir -p "$task"
    cp "$tsc_package/lib/_tsc.js" "$task/tsc.js"
    plant "$task/tsc.js" "|| message.message;" "|| message.messageText.trim();"
    cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$1" "$d/tsc.js"
printf 'let x: number = "s";\n' >"$d/t.ts"
out=$(cd "$d" && timeout 20 node tsc.js --noEmit t.ts 2>&1)
grep -qF "TypeError: Cannot read properties of undefined (reading 'trim')" <<<"$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no node or no $tsc_package/lib/_tsc.js: the large JavaScript task is skipped" >&2
fi

if command -v clang-14 >/dev/null && command -v opt-14 >/dev/null && [ -f "$tree_sitter_src/src/lib.c" ]; then
    task=$out/llvm-verify-dominance
    mkdir -p "$task"
    clang-14 -S -emit-llvm -O1 -I"$tree_sitter_src/include" -I"$tree_sitter_src/src" \
        "$tree_sitter_src/src/lib.c" -o "$task/lib.ll"
    python3 - "$task/lib.ll" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
start = text.index("@ts_node_child_count(")
end = text.index("\n}\n", start)
body = text[start:end]
# The first comparison of a loaded i32 with 0 reads the value loaded last instead.
compare = re.search(r"(%\d+) = icmp eq i32 (%\d+), 0", body)
loads = re.findall(r"(%\d+) = load i32, ", body)
if not compare or not loads:
    sys.exit(f"{path}: ts_node_child_count is not shaped as expected")
planted = body.replace(compare.group(0), f"{compare.group(1)} = icmp eq i32 {loads[-1]}, 0", 1)
open(path, "w").write(text[:start] + planted + text[end:])
EOF
    cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
out=$(timeout 20 opt-14 -passes=verify -disable-output "$1" 2>&1)
grep -qF "Instruction does not dominate all uses!" <<<"$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no clang-14, opt-14 or tree-sitter source: the LLVM task is skipped" >&2
fi

if [ -x "$pg_bin/postgres" ] && [ -f "$pg_share/information_schema.sql" ] && [ "$(id -u)" = 0 ] \
    && id postgres >/dev/null 2>&1; then
    task=$(cd "$out" && pwd)/sql-postgres-swapped-args
    mkdir -p "$task"
    sed 's/information_schema/info_copy/g' "$pg_share/information_schema.sql" >"$task/information_schema.sql"
    plant "$task/information_schema.sql" \
        $'             END\n             AS character_data)\n             AS data_type,\n\n           CAST(\n             _pg_char_max_length(_pg_truetypid(a, t), _pg_truetypmod(a, t))' \
        $'             END\n             AS character_data)\n             AS data_type,\n\n           CAST(\n             _pg_char_max_length(_pg_truetypmod(a, t), _pg_truetypid(a, t))'
    # The cluster each test copies (the server refuses to run as root).
    rm -rf "$task/cluster" && mkdir -p "$task/cluster" && chown postgres "$task/cluster"
    su postgres -s /bin/sh -c "$pg_bin/initdb -D '$task/cluster/db' -A trust -U postgres" >/dev/null
    cat >"$task/oracle.sh" <<EOF
#!/bin/bash
f=\$(readlink -f "\$1")
d=\$(mktemp -d) || exit 2
trap 'rm -rf "\$d"' EXIT
cp -a '$task/cluster/db' "\$d/db" && chown -R postgres "\$d" && chmod 755 "\$d" || exit 2
out=\$(timeout 20 su postgres -s /bin/sh -c "$pg_bin/postgres --single -D \$d/db -j postgres" <"\$f" 2>&1)
grep -qF 'ERROR:  function _pg_char_max_length(integer, oid) does not exist' <<<"\$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no PostgreSQL 15 at $pg_bin, not root, or no user postgres: the SQL task is skipped" >&2
fi

if command -v sqlite3 >/dev/null; then
    task=$out/sql-sqlite-nested-function
    mkdir -p "$task"
    python3 - "$task/queries.sql" <<'EOF'
import random, sys
random.seed(22)
tables, out = [], []
for t in range(50):
    cols = ["c%d %s" % (i, random.choice(["TEXT", "INTEGER", "REAL"]))
            for i in range(random.randint(2, 6))]
    out.append("CREATE TABLE t%d (id INTEGER PRIMARY KEY, %s)" % (t, ", ".join(cols)))
    tables.append(("t%d" % t, [c.split()[0] for c in cols]))
    for r in range(random.randint(1, 3)):
        out.append("INSERT INTO t%d VALUES (%d, %s)"
                   % (t, r + 1, ", ".join(str(random.randint(0, 9)) for _ in cols)))
def expr(t, depth=0):
    column = random.choice(tables[t][1])
    if depth > 2:
        return random.choice([column, str(random.randint(0, 9)), "'x'"])
    a, b, c, d = (expr(t, depth + 1) for _ in range(4))
    return random.choice(["(%s + %s)" % (a, b), "CASE WHEN %s > %s THEN %s ELSE %s END" % (a, b, c, d),
                          "abs(%s)" % a, "coalesce(%s, %s)" % (a, b), column])
for q in range(25):
    t = random.randrange(len(tables))
    out.append("SELECT %s FROM %s WHERE %s IN (SELECT %s FROM %s)"
               % (expr(t), tables[t][0], expr(t), tables[t][1][0], tables[t][0]))
t, u = random.randrange(len(tables)), random.randrange(len(tables))
out.insert(len(out) * 2 // 3,
           "WITH x AS (SELECT %s AS v FROM %s), y AS (SELECT v, (SELECT max(%s) FROM %s WHERE %s > "
           "nosuchfn(%s)) AS w FROM x WHERE v > 0) SELECT * FROM y ORDER BY w"
           % (expr(t), tables[t][0], tables[u][1][0], tables[u][0], expr(u), expr(t)))
open(sys.argv[1], "w").write(";\n".join(out) + ";\n")
EOF
    cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
out=$(timeout 10 sqlite3 :memory: <"$1" 2>&1)
grep -qF 'no such function: nosuchfn' <<<"$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no sqlite3: the SQLite task is skipped" >&2
fi

if command -v "$javac" >/dev/null && command -v unzip >/dev/null && [ -f "$jdk_src_zip" ]; then
    task=$out/java-javac-jdk-arrays
    mkdir -p "$task"
    unzip -p "$jdk_src_zip" java.base/java/util/Arrays.java >"$task/Arrays.java"
    {
        echo '#!/bin/bash'
        echo '# javac compiles the candidate as java.base'"'"'s java/util/Arrays.java.'
        echo 'f=$(readlink -f "$1"); t=$(mktemp -d); trap '"'"'rm -rf "$t"'"'"' EXIT'
        echo 'mkdir -p "$t/p/java/util" && cp "$f" "$t/p/java/util/Arrays.java" || exit 1'
        printf 'out=$(cd "$t" && timeout 60 %q --patch-module java.base=p -d o -Xmaxerrs 1000 p/java/util/Arrays.java 2>&1)\n' "$javac"
        echo 'grep -qF "error: method hashCode in class Object cannot be applied to given types" <<<"$out"'
    } >"$task/oracle.sh"
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no $javac, unzip or $jdk_src_zip: the Java task is skipped" >&2
fi

task=$out/json-python-large-list
mkdir -p "$task"
python3 - "$task/catalogue.json" <<'EOF'
import json, random, sys
random.seed(7)
items = []
for i in range(30000):
    items.append({"id": i, "name": "item%d" % i,
                  "tags": ["t%d" % random.randint(0, 99) for _ in range(3)],
                  "price": round(random.random() * 100, 2),
                  "meta": {"a": random.randint(0, 9), "b": [1, 2, 3], "c": None}})
items[21017]["meta"]["b"] = [1, 2, {"bad": 42}]
json.dump({"version": 3, "items": items}, open(sys.argv[1], "w"), indent=2)
EOF
cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
timeout 20 python3 -c '
import json, sys
def holds(x):
    if isinstance(x, dict):
        return x.get("bad") == 42 or any(holds(v) for v in x.values())
    return isinstance(x, list) and any(holds(v) for v in x)
sys.exit(0 if holds(json.load(open(sys.argv[1]))) else 1)' "$1" 2>/dev/null
EOF
chmod +x "$task/oracle.sh"

if command -v rustc >/dev/null && [ -f "$termwiz_src/src/nerdfonts_data.rs" ]; then
    task=$out/rust-rustc-table-entry
    mkdir -p "$task"
    cp "$termwiz_src/src/nerdfonts_data.rs" "$task/nerdfonts_data.rs"
    plant "$task/nerdfonts_data.rs" "(\"md_comma_box\", '\\u{f0e2b}')" '("md_comma_box", "\u{f0e2b}")'
    cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
f=$(readlink -f "$1"); t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
out=$(cd "$t" && timeout 60 rustc --edition 2021 --crate-type lib --emit=metadata -o "$t/out.rmeta" "$f" 2>&1)
grep -qF "error[E0308]: mismatched types" <<<"$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no rustc or termwiz source at '$termwiz_src': the Rust table task is skipped" >&2
fi

if [ -f "$idna_uts46" ]; then
    task=$out/py-python-segment-tuple
    mkdir -p "$task"
    python3 - "$idna_uts46" "$task/uts46data.py" <<'EOF'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index("return [", text.index("def _seg_40()"))
end = text.index("\n    ]\n", start)
text = text[:start] + "return (" + text[start + 8:end] + "\n    )\n" + text[end + 7:]
open(sys.argv[2], "w", encoding="utf-8").write(text)
EOF
    cat >"$task/oracle.sh" <<'EOF'
#!/bin/bash
f=$(readlink -f "$1"); d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
out=$(cd "$d" && timeout 10 $PY -I -B "$f" 2>&1 </dev/null) && exit 1
grep -qF 'TypeError: can only concatenate list (not "tuple") to list' <<<"$out"
EOF
    chmod +x "$task/oracle.sh"
else
    echo "installed-tasks: no $idna_uts46: the Python segment task is skipped" >&2
fi

for task in "$out"/*/; do
    input=$task/$(task_input "$task")
    if ! "$task/oracle.sh" "$input"; then
        echo "installed-tasks: $task: the oracle rejects the input (another version of the tool?)" >&2
    elif "$task/oracle.sh" /dev/null; then
        echo "installed-tasks: $task: the oracle accepts an empty file" >&2
    fi
done
