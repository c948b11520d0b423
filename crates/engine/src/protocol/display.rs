//! Text the engine prints: `info` lines and the board for `d`.

use crate::search::{Report, score_text};
use crate::tt::Bound;
use bashni_rules::{Position, column_text, piece_char};
use std::fmt::Write;

/// The `info` line of one search report.
pub fn info_line(r: &Report) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}",
        r.depth,
        r.seldepth,
        r.multipv,
        score_text(r.score)
    );
    match r.bound {
        Some(Bound::Lower) => s.push_str(" lowerbound"),
        Some(Bound::Upper) => s.push_str(" upperbound"),
        _ => {}
    }
    let _ = write!(
        s,
        " nodes {} nps {} hashfull {} time {} pv",
        r.nodes,
        r.nps,
        r.hashfull,
        r.elapsed.as_millis()
    );
    for mv in &r.pv {
        let _ = write!(s, " {mv}");
    }
    s
}

/// The board as text: a grid of commanders with heights, then every
/// column's contents, the FEN and the key.
pub fn board_text(pos: &Position) -> String {
    let g = pos.geometry();
    let mut s = String::new();
    for rank in (0..g.size).rev() {
        let _ = write!(s, "{} ", rank + 1);
        for file in 0..g.size {
            let sq = bashni_rules::Square::new(file, rank);
            let col = pos.column(sq);
            let cell = if !g.is_playable(sq) {
                "   ".to_string()
            } else if col.is_empty() {
                " . ".to_string()
            } else {
                let top = piece_char(col.piece(0).expect("non-empty column"));
                format!("{top}{:<2}", col.height())
            };
            s.push_str(&cell);
        }
        s.push('\n');
    }
    s.push_str("  ");
    for file in 0..g.size {
        let _ = write!(s, " {} ", (b'a' + file) as char);
    }
    s.push('\n');
    for sq in g.squares().filter(|&sq| pos.column(sq).height() > 1) {
        let col = pos.column(sq);
        let _ = writeln!(
            s,
            "{sq}: height {} ({} own, {} prisoners), top to bottom {}",
            col.height(),
            col.own(),
            col.prisoners(),
            column_text(col)
        );
    }
    let side = pos.side_to_move().name();
    let _ = writeln!(s, "Variant: {}  Side to move: {side}", pos.variant());
    let _ = writeln!(s, "Fen: {}", pos.to_fen());
    let _ = write!(s, "Key: {:016x}", pos.key());
    s
}
