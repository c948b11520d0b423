//! The evaluation's weights, one table per variant: a (midgame, endgame)
//! pair in centi-men for every parameter of [`super::Param`], in its order.
//!
//! The tables live in `weights/<variant>.txt` with where they came from
//! (data, command, commit, errors; format in [`super::weights_file`]),
//! written by `bashni tune --write` from self-play data (docs/tuning.md).
//! The build script compiles each file into the constant below, so the
//! evaluation reads a constant table and pays nothing for the files.

use super::table::{Weights, pair};

include!(concat!(env!("OUT_DIR"), "/weights.rs"));

#[cfg(test)]
mod tests {
    use super::super::weights_file::parse;
    use super::*;

    /// The files as the build read them: their text is also what the
    /// writer would give, so `bashni tune --write` changes only what it
    /// fits, and the constants are their tables.
    #[test]
    fn the_files_are_in_written_form_and_are_the_constants() {
        for (text, constant) in [
            (include_str!("weights/bashni.txt"), &BASHNI_WEIGHTS),
            (include_str!("weights/lasca.txt"), &LASCA_WEIGHTS),
        ] {
            let file = parse(text).expect("the build parsed it");
            assert_eq!(&file.weights, constant, "{}", file.variant);
            assert_eq!(file.to_string(), text, "{}", file.variant);
        }
    }
}
