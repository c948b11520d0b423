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
                    // Lazily: make without evaluating, then evaluate the
                    // grandchild, which computes both plies at once.
                    let undo = stack.make(&mut pos, mv);
                    if let Some(reply) = pos.legal_moves().first() {
                        let undo2 = stack.make(&mut pos, reply);
                        let scratch = Accumulator::from_position(&net, &pos);
                        assert_eq!(stack.current(), &scratch, "{mv} {reply}");
                        pos.unmake(reply, undo2);
                        stack.pop();
                    }
                    assert_eq!(stack.current(), &Accumulator::from_position(&net, &pos));
                    pos.unmake(mv, undo);
                    stack.pop();
                }
                let mv = moves[(xorshift(&mut seed) % moves.len() as u64) as usize];
                stack.make(&mut pos, &mv);
                assert_eq!(stack.evaluate(&pos), net.evaluate_position(&pos));
            }
        }
    }
}

/// Every backend this CPU runs gives the scalar one's score on positions
/// of random games, with a random network and with the embedded one
/// (whose activations are as sparse as the search meets them).
#[test]
fn backends_give_the_same_scores() {
    let mut seed = 0x0123_4567_89AB_CDEF;
    for (variant, backend) in Variant::ALL
        .into_iter()
        .flat_map(|v| Backend::available().into_iter().map(move |b| (v, b)))
    {
        let random = FloatNetwork::random(variant, 3).quantise(variant, "test");
        let nets = [Some(Ok(random)), embedded(variant)];
        for net in nets.into_iter().flatten() {
            let net = net.unwrap();
            backends_agree_on_random_games(&net.with_backend(backend), &mut seed);
        }
    }
}

fn backends_agree_on_random_games(fast: &Network, seed: &mut u64) {
    let variant = fast.variant();
    let scalar = fast.clone().with_backend(Backend::Scalar);
    for _ in 0..4 {
        let mut pos = Position::start(&RuleSet::new(variant));
        for _ in 0..120 {
            assert_eq!(fast.evaluate_position(&pos), scalar.evaluate_position(&pos));
            let raw = |net: &Network| {
                net.raw_output(&Accumulator::from_position(net, &pos), pos.side_to_move())
            };
            assert_eq!(raw(fast), raw(&scalar), "{:?}", fast.backend());
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make(&moves[(xorshift(seed) % moves.len() as u64) as usize]);
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

/// A search with a network plays legal moves; a network of the other
/// variant is ignored, so that search is the linear one, node for node.
#[test]
fn searches_use_a_network_of_their_variant_only() {
    use crate::search::{Config, Limits, Searcher};
    use crate::tt::{LockFreeTable, Table};
    let limits = Limits {
        depth: Some(5),
        ..Limits::default()
    };
    for variant in Variant::ALL {
        let pos = Position::start(&RuleSet::new(variant));
        let search = |network: Option<Arc<Network>>| {
            let table = LockFreeTable::try_with_megabytes(1).unwrap();
            let config = Config {
                draw_rules: RuleSet::new(variant).draw,
                network,
                ..Config::default()
            };
            Searcher::new(&table, config).search(&pos, &[], &limits, &mut |_| {})
        };
        let own = Arc::new(FloatNetwork::random(variant, 9).quantise(variant, "t"));
        let other_variant = Variant::ALL.into_iter().find(|&v| v != variant).unwrap();
        let other = FloatNetwork::random(other_variant, 9).quantise(other_variant, "t");
        let learned = search(Some(own));
        assert!(pos.legal_moves().contains(&learned.best.unwrap()));
        let linear = search(None);
        let ignored = search(Some(Arc::new(other)));
        assert_eq!((ignored.nodes, ignored.score), (linear.nodes, linear.score));
        assert_ne!(
            (learned.nodes, learned.score),
            (linear.nodes, linear.score),
            "the network was not used"
        );
    }
}

/// Inference speed: run with
/// `cargo test --release -p bashni-engine nnue::tests::speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed() {
    use std::time::Instant;
    let variant = Variant::Bashni;
    let net = Arc::new(FloatNetwork::random(variant, 1).quantise(variant, "speed"));
    let mut seed = 0x5EED;
    let mut positions = Vec::new();
    let mut pos = Position::start(&RuleSet::new(variant));
    while positions.len() < 2000 {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.game_ply() > 120 {
            pos = Position::start(&RuleSet::new(variant));
            continue;
        }
        positions.push(pos.clone());
        pos.make(&moves[(xorshift(&mut seed) % moves.len() as u64) as usize]);
    }
    let rounds = 50;
    let start = Instant::now();
    let mut sum = 0i64;
    for _ in 0..rounds {
        for p in &positions {
            sum += net.evaluate_position(p) as i64;
        }
    }
    let n = (rounds * positions.len()) as f64;
    println!(
        "from scratch: {:.0} ns per evaluate ({sum})",
        start.elapsed().as_nanos() as f64 / n
    );
    let accs: Vec<(Accumulator, bashni_rules::Colour)> = positions
        .iter()
        .map(|p| (Accumulator::from_position(&net, p), p.side_to_move()))
        .collect();
    let mut time_layers = |net: &Network, what: &str| {
        let start = Instant::now();
        for _ in 0..rounds {
            for (acc, side) in &accs {
                sum += net.evaluate(acc, *side) as i64;
            }
        }
        println!(
            "{what}: {:.0} ns per evaluate ({sum})",
            start.elapsed().as_nanos() as f64 / n
        );
    };
    time_layers(&net, "layers after the accumulator");
    let scalar = net
        .as_ref()
        .clone()
        .with_backend(crate::nnue::Backend::Scalar);
    time_layers(&scalar, "the same, scalar backend");
    let mut made = 0u64;
    let start = Instant::now();
    for p in &positions {
        let mut p = p.clone();
        let mut stack = AccumulatorStack::new(net.clone(), &p);
        for mv in p.legal_moves() {
            for _ in 0..rounds {
                let undo = stack.make(&mut p, &mv);
                std::hint::black_box(stack.current());
                p.unmake(&mv, undo);
                stack.pop();
                made += 1;
            }
        }
    }
    println!(
        "make + incremental update (forced) + unmake: {:.0} ns per move",
        start.elapsed().as_nanos() as f64 / made as f64
    );
    let mut p = positions[positions.len() / 2].clone();
    let moves = p.legal_moves();
    let start = Instant::now();
    let mut plain = 0u64;
    for _ in 0..rounds * 100 {
        for mv in &moves {
            let undo = p.make(mv);
            p.unmake(mv, undo);
            plain += 1;
        }
    }
    println!(
        "make + unmake alone: {:.0} ns per move",
        start.elapsed().as_nanos() as f64 / plain as f64
    );
    println!("backend {:?}", net.backend());
}
