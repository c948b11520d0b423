//! Opening positions: reading a book file, and making the shipped books.
//!
//! A book is one position string per line; `#` starts a comment, blank
//! lines are skipped. A line `variant bashni` or `variant lasca` before the
//! first position states the book's variant: playing it as the other
//! variant is an error (a Lasca position is also a legal Bashni one, so
//! without the line nothing would catch the mix-up). The shipped books (`bench-positions/openings-*.txt`)
//! come from `generate`, and a test checks they still match it.

use crate::Error;
use bashni_rules::{Colour, Position, RuleSet, Variant};
use std::collections::BTreeSet;

/// Read a book: the positions in file order, each checked by the rules core.
pub fn parse_openings(variant: Variant, text: &str) -> Result<Vec<String>, Error> {
    let mut openings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let number = index + 1;
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("variant ") {
            if let Some(why) = check_variant(variant, name, openings.is_empty()) {
                return Err(Error::book(number, why));
            }
            continue;
        }
        let pos = Position::from_fen(&RuleSet::new(variant), line)
            .map_err(|e| Error::book(number, format!("bad {variant} position '{line}': {e}")))?;
        if pos.legal_moves().is_empty() {
            return Err(Error::book(number, format!("'{line}' has no legal move")));
        }
        openings.push(line.to_string());
    }
    if openings.is_empty() {
        return Err(Error::book(0, "the openings file holds no position"));
    }
    Ok(openings)
}

/// A `variant NAME` line: it must come first and name the variant played;
/// what is wrong with it otherwise.
fn check_variant(variant: Variant, name: &str, first: bool) -> Option<String> {
    let stated: Variant = match name.trim().parse() {
        Ok(stated) => stated,
        Err(why) => return Some(why.to_string()),
    };
    if !first {
        return Some("the variant line must come before the positions".into());
    }
    (stated != variant)
        .then(|| format!("this is a {stated} book, but the match plays {variant} (--variant)"))
}

/// Pieces a side has free (in columns it commands) and prisoners it holds.
fn material(pos: &Position, colour: Colour) -> (u32, u32) {
    (pos.commanded_by(colour))
        .iter()
        .fold((0, 0), |(own, prisoners), sq| {
            let col = pos.column(sq);
            (own + col.own(), prisoners + col.prisoners())
        })
}

/// A position fit to start a game from: both sides have the same free
/// pieces and the same prisoners, and the side to move has no capture
/// pending (so no exchange is half done).
fn is_balanced(pos: &Position) -> bool {
    material(pos, Colour::White) == material(pos, Colour::Black)
        && !pos.has_capture()
        && !pos.legal_moves().is_empty()
}

/// Every distinct balanced position exactly `plies` plies from the start,
/// sorted by position string, then `count` of them picked evenly through
/// the list (all of them if there are fewer).
pub fn generate(variant: Variant, plies: u32, count: usize) -> Vec<String> {
    let mut layer = vec![Position::start(&RuleSet::new(variant))];
    for _ in 0..plies {
        let mut next = BTreeSet::new();
        let mut positions = Vec::new();
        for pos in &layer {
            for mv in pos.legal_moves() {
                let mut child = pos.clone();
                child.make(&mv);
                if next.insert(child.to_fen()) {
                    positions.push(child);
                }
            }
        }
        layer = positions;
    }
    let balanced: Vec<String> = layer
        .iter()
        .filter(|p| is_balanced(p))
        .map(Position::to_fen)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if balanced.len() <= count {
        return balanced;
    }
    (0..count)
        .map(|i| balanced[i * balanced.len() / count].clone())
        .collect()
}

/// The order openings are played in: the file order, or shuffled with a
/// seed. The shuffle is a Fisher-Yates with the rules crate's splitmix64,
/// so the order for a seed never changes with a dependency's version.
pub fn order(count: usize, seed: Option<u64>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    if let Some(seed) = seed {
        let mut stream = bashni_rules::SplitMix64::new(seed);
        for i in (1..count).rev() {
            let j = (stream.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_parse_with_comments_and_blank_lines() {
        let text = format!(
            "# a book\n\n{}  # the start\n   \n",
            Variant::Bashni.start_fen()
        );
        let book = parse_openings(Variant::Bashni, &text).unwrap();
        assert_eq!(book, vec![Variant::Bashni.start_fen().to_string()]);
        let err = parse_openings(Variant::Lasca, &text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("line 3:"), "{err}");
        assert!(parse_openings(Variant::Bashni, "# nothing\n").is_err());
        let lasca_book = format!("variant lasca\n{}\n", Variant::Lasca.start_fen());
        assert_eq!(
            parse_openings(Variant::Lasca, &lasca_book).unwrap().len(),
            1
        );
        let err = parse_openings(Variant::Bashni, &lasca_book)
            .unwrap_err()
            .to_string();
        assert!(err.contains("this is a lasca book"), "{err}");
        let late = format!("{}\nvariant bashni\n", Variant::Bashni.start_fen());
        assert!(parse_openings(Variant::Bashni, &late).is_err());
        assert!(parse_openings(Variant::Bashni, "variant chess\n").is_err());
    }

    #[test]
    fn the_start_is_balanced_and_a_pending_capture_is_not() {
        assert!(is_balanced(&Position::start(&RuleSet::new(
            Variant::Bashni
        ))));
        // White's man on d4 can take e5: a capture is pending.
        let pos = Position::from_fen(&RuleSet::new(Variant::Bashni), "W:d4w,e5b,h8b").unwrap();
        assert!(!is_balanced(&pos));
    }

    /// The shipped books: depth and size of each.
    const BOOKS: [(Variant, u32, usize); 2] = [(Variant::Bashni, 4, 40), (Variant::Lasca, 6, 40)];

    fn book_text(variant: Variant, plies: u32, positions: &[String]) -> String {
        let mut text = format!(
            "# {variant} openings for `bashni match --openings`: {} positions.\n\
             # Made by openings::generate({variant}, {plies} plies): every distinct\n\
             # position {plies} plies after the start in which both sides have the same\n\
             # free pieces and the same prisoners and the side to move has no capture\n\
             # pending, sorted by position string, picked evenly through the list.\n\
             # Regenerate: BASHNI_WRITE_OPENINGS=1 cargo test -p bashni-host --lib shipped_books\n\
             variant {variant}\n",
            positions.len()
        );
        for fen in positions {
            text += fen;
            text.push('\n');
        }
        text
    }

    #[test]
    fn shipped_books_are_the_generated_ones() {
        for (variant, plies, count) in BOOKS {
            let generated = generate(variant, plies, count);
            let path = format!(
                "{}/../../bench-positions/openings-{variant}.txt",
                env!("CARGO_MANIFEST_DIR")
            );
            if std::env::var_os("BASHNI_WRITE_OPENINGS").is_some() {
                std::fs::write(&path, book_text(variant, plies, &generated)).unwrap();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let book = parse_openings(variant, &text).unwrap();
            assert_eq!(book, generated, "{path} differs from the generator");
            assert!(book.len() >= 30, "{path}: only {} positions", book.len());
            let distinct: BTreeSet<&String> = book.iter().collect();
            assert_eq!(distinct.len(), book.len(), "{path} repeats a position");
            for fen in &book {
                let pos = Position::from_fen(&RuleSet::new(variant), fen).unwrap();
                assert!(is_balanced(&pos), "{fen}");
                assert_eq!(pos.game_ply(), plies, "{fen}");
            }
        }
    }

    #[test]
    fn shuffles_are_permutations_and_repeatable() {
        assert_eq!(order(5, None), vec![0, 1, 2, 3, 4]);
        let shuffled = order(40, Some(7));
        assert_eq!(shuffled, order(40, Some(7)));
        assert_ne!(shuffled, order(40, None));
        let mut sorted = shuffled.clone();
        sorted.sort();
        assert_eq!(sorted, order(40, None));
    }
}
