//! The network's contracts: incremental and from-scratch sums agree on
//! every ply of random games, the backends agree, and damaged files are
//! refused with the reason.

use super::*;
use bashni_rules::{Position, RuleSet};
use std::sync::Arc;

fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// On every ply of random games, in both variants, the accumulator the
/// stack updated equals one built from scratch, integer for integer, and
/// unmaking returns to the parent's.
#[test]
fn incremental_equals_from_scratch_on_random_games() {
    let mut seed = 0x2545_F491_4F6C_DD1D;
    for variant in Variant::ALL {
        let net = Arc::new(FloatNetwork::random(variant, 7).quantise(variant, "test"));
        for _ in 0..30 {
            let mut pos = Position::start(&RuleSet::new(variant));
            let mut stack = AccumulatorStack::new(net.clone(), &pos);
            for _ in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Make and take back every move, then play one at random.
                for mv in &moves {
                    let parent = stack.current().clone();
                    let undo = stack.make(&mut pos, mv);
                    assert_eq!(
                        stack.current(),
                        &Accumulator::from_position(&net, &pos),
                        "{mv}"
                    );
                    pos.unmake(mv, undo);
                    stack.pop();
                    assert_eq!(stack.current(), &parent);
                }
                let mv = moves[(xorshift(&mut seed) % moves.len() as u64) as usize];
                stack.make(&mut pos, &mv);
                assert_eq!(stack.evaluate(&pos), net.evaluate_position(&pos));
            }
        }
    }
}

/// The scalar and the detected backend give one score on positions of
/// random games.
#[test]
fn backends_give_the_same_scores() {
    let mut seed = 0x0123_4567_89AB_CDEF;
    for variant in Variant::ALL {
        let float = FloatNetwork::random(variant, 3);
        let fast = float.quantise(variant, "test");
        let scalar = fast.clone().with_backend(Backend::Scalar);
        let mut pos = Position::start(&RuleSet::new(variant));
        for _ in 0..120 {
            assert_eq!(fast.evaluate_position(&pos), scalar.evaluate_position(&pos));
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make(&moves[(xorshift(&mut seed) % moves.len() as u64) as usize]);
        }
    }
}

#[test]
fn files_round_trip() {
    for variant in Variant::ALL {
        let net = FloatNetwork::random(variant, 5).quantise(variant, "made by a test\nseed 5");
        let back = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(back, net);
        assert_eq!(back.provenance(), "made by a test\nseed 5");
    }
}

/// Each kind of damage gets its own error.
#[test]
fn damaged_files_say_what_is_wrong() {
    let net = FloatNetwork::random(Variant::Lasca, 5).quantise(Variant::Lasca, "p");
    let good = net.to_bytes();
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        f(&mut bytes);
        Network::from_bytes(&bytes).unwrap_err()
    };
    assert_eq!(with(&|b| b[0] = b'X'), NetworkError::Magic);
    assert_eq!(with(&|b| b[4] = 9), NetworkError::Version { found: 9 });
    assert_eq!(with(&|b| b[8] = 7), NetworkError::UnknownVariant(7));
    // Lasca's header read as Bashni's: the feature count is wrong.
    assert!(matches!(
        with(&|b| b[8] = 0),
        NetworkError::Size {
            what: "features",
            ..
        }
    ));
    assert!(matches!(
        with(&|b| b[13] = 1),
        NetworkError::Size { what: "l1", .. }
    ));
    assert!(matches!(
        with(&|b| b.truncate(b.len() - 100)),
        NetworkError::Truncated { .. }
    ));
    let middle = good.len() / 2;
    assert!(matches!(
        with(&|b| b[middle] ^= 1),
        NetworkError::Checksum { .. }
    ));
    assert_eq!(with(&|b| b.push(0)), NetworkError::TrailingBytes(1));
    let message = with(&|b| b.truncate(30)).to_string();
    assert!(message.contains("ends inside"), "{message}");
}

#[test]
fn loading_checks_the_variant() {
    let dir = std::env::temp_dir().join(format!("bashni-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lasca.nnue");
    let net = FloatNetwork::random(Variant::Lasca, 5).quantise(Variant::Lasca, "p");
    net.save(&path).unwrap();
    assert_eq!(Network::load(&path, Variant::Lasca).unwrap(), net);
    let err = Network::load(&path, Variant::Bashni).unwrap_err();
    assert_eq!(
        err,
        NetworkError::WrongVariant {
            found: Variant::Lasca,
            wanted: Variant::Bashni
        }
    );
    assert!(matches!(
        Network::load(&dir.join("missing"), Variant::Lasca),
        Err(NetworkError::Io(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
