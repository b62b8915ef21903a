//! Reads the suite's parameters from their one definition, the C headers
//! ../../common/fj.h (every `#define FJ_<NAME> <number>`) and uts.h (the
//! rows of `uts_trees` and `uts_test_trees`), into $OUT_DIR/params.rs.
use std::{env, fs, path::Path};

fn main() {
    let common = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../common");
    let mut out = String::new();
    let fj = fs::read_to_string(common.join("fj.h")).expect("bench/forkjoin/common/fj.h");
    for line in fj.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 3 && words[0] == "#define" && words[1].starts_with("FJ_") {
            if let Ok(v) = words[2].parse::<i64>() {
                out += &format!("pub const {}: i64 = {};\n", words[1], v);
            }
        }
    }
    let uts = fs::read_to_string(common.join("uts.h")).expect("bench/forkjoin/common/uts.h");
    for table in ["uts_trees", "uts_test_trees"] {
        let start = uts.find(&format!("{}[] = {{", table)).expect("tree table in uts.h");
        let body = &uts[start..start + uts[start..].find("};").expect("end of tree table")];
        out += &format!("pub const {}: &[UtsTree] = &[\n", table.to_uppercase());
        for row in body.lines().filter(|l| l.trim_start().starts_with("{ \"")) {
            let f: Vec<&str> = row.trim().trim_start_matches('{').trim_end_matches("},").split(',').map(str::trim).collect();
            assert_eq!(f.len(), 10, "a uts.h tree row has 10 fields: {}", row);
            out += &format!(
                "    UtsTree {{ name: {}, kind: UtsKind::{}, b0: {}f64, max_depth: {}, q: {}f64, m: {}, seed: {}, nodes: {}, leaves: {}, depth: {} }},\n",
                f[0], if f[1] == "UTS_BINOMIAL" { "Binomial" } else { "GeometricFixed" }, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]
            );
        }
        out += "];\n";
    }
    fs::write(Path::new(&env::var("OUT_DIR").unwrap()).join("params.rs"), out).unwrap();
    println!("cargo:rerun-if-changed=../../common/fj.h");
    println!("cargo:rerun-if-changed=../../common/uts.h");
}
