//! Compiles the weights files (`src/eval/weights/<variant>.txt`) into the
//! constant tables of `eval::weights`, so the evaluation reads constants
//! as it always did, and a malformed file stops the build with its name
//! and line. The parameters and the format come from the crate's own
//! modules, included here, so there is one declaration of each.

#[allow(dead_code)]
#[path = "src/eval/params.rs"]
mod params;
#[allow(dead_code)]
#[path = "src/eval/table.rs"]
mod table;
#[allow(dead_code)]
#[path = "src/eval/weights_file.rs"]
mod weights_file;

use std::fmt::Write as _;
use std::path::Path;

/// The variants with a weights file, by the file's stem.
const VARIANTS: [&str; 2] = ["bashni", "lasca"];

fn main() {
    for module in ["params.rs", "table.rs", "weights_file.rs"] {
        println!("cargo::rerun-if-changed=src/eval/{module}");
    }
    let mut source = String::new();
    for variant in VARIANTS {
        let path = format!("src/eval/weights/{variant}.txt");
        println!("cargo::rerun-if-changed={path}");
        let file = read(&path, variant).unwrap_or_else(|message| {
            // Cargo shows a failed build script's stderr; name the file as
            // the workspace sees it, so the message can be clicked.
            eprintln!("error: crates/engine/{path}:{message}");
            std::process::exit(1);
        });
        source += &constant(&path, &file);
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("weights.rs");
    std::fs::write(&out, source).expect("write the generated tables");
}

/// Read and check one file; the error is `<line>: <what is wrong>`.
fn read(path: &str, variant: &str) -> Result<weights_file::WeightsFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("0: cannot read: {e}"))?;
    let file = weights_file::parse(&text).map_err(|e| format!("{}: {}", e.line, e.message))?;
    if file.variant != variant {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("variant"))
            .map_or(0, |n| n + 1);
        return Err(format!(
            "{line}: variant '{}' in the file for {variant}",
            file.variant
        ));
    }
    Ok(file)
}

/// The constant `<VARIANT>_WEIGHTS`, documented with the file's provenance.
fn constant(path: &str, file: &weights_file::WeightsFile) -> String {
    let mut doc = vec![
        format!("The {} weights, from `crates/engine/{path}`.", file.variant),
        String::new(),
    ];
    let p = &file.provenance;
    let items = p.data.iter().map(|d| ("data", d));
    let items = items.chain([("command", &p.command), ("commit", &p.commit)]);
    let items = items.chain(p.losses.iter().map(|l| ("loss", l)));
    let items = items.chain(p.notes.iter().map(|n| ("note", n)));
    doc.extend(items.map(|(key, text)| format!("- {key}: {text}")));
    let mut out = String::new();
    for line in doc {
        let _ = writeln!(out, "#[doc = {line:?}]");
    }
    let w = &file.weights;
    let _ = writeln!(
        out,
        "pub const {}_WEIGHTS: Weights = Weights {{\n    midgame_columns: {},\n    endgame_columns: {},\n    params: [",
        file.variant.to_uppercase(),
        w.midgame_columns,
        w.endgame_columns
    );
    for (info, weight) in params::PARAMS.iter().zip(&w.params) {
        let _ = writeln!(
            out,
            "        pair({}, {}), // {}",
            weight.mg, weight.eg, info.name
        );
    }
    out.push_str("    ],\n};\n\n");
    out
}
