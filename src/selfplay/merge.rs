//! `bashni merge-data`: join the files of a sharded self-play run (or any
//! data files) into one, keeping only complete games and refusing a game
//! index that two files both hold, which would count a game twice.

use super::record::{self, DataLine};
use anyhow::{Context, bail};
use std::collections::HashMap;
use std::path::PathBuf;

/// `bashni merge-data`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Data files written by `bashni selfplay` (e.g. its shards).
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// The merged file (must not exist yet).
    #[arg(long)]
    pub out: PathBuf,
}

/// A game's identity: indices are per variant.
type GameId = (String, u64);

/// The lines of one file that belong to complete games, with those
/// games; an unfinished game at the end is left out.
fn complete_part(path: &PathBuf) -> anyhow::Result<(String, Vec<GameId>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (mut kept, mut pending, mut games) = (String::new(), String::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let parsed = record::parse_numbered(n, line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.error))?;
        pending.push_str(line);
        pending.push('\n');
        if let DataLine::GameEnd(end) = parsed {
            games.push((end.variant.to_string(), end.game));
            kept.push_str(&pending);
            pending.clear();
        }
    }
    Ok((kept, games))
}

/// Merge the files; returns the number of games written.
pub fn merge(args: &MergeArgs) -> anyhow::Result<usize> {
    if args.out.exists() {
        bail!(
            "{} exists; merge-data writes a new file",
            args.out.display()
        );
    }
    let mut owner: HashMap<GameId, &PathBuf> = HashMap::new();
    let mut merged = String::new();
    for path in &args.data {
        let (text, games) = complete_part(path)?;
        for (variant, game) in games {
            if let Some(first) = owner.insert((variant.clone(), game), path) {
                bail!(
                    "{variant} game {game} is in both {} and {}: the files overlap",
                    first.display(),
                    path.display()
                );
            }
        }
        merged.push_str(&text);
    }
    std::fs::write(&args.out, &merged)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(owner.len())
}

/// `bashni merge-data`.
pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let games = merge(&args)?;
    println!("{games} games written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{PlayedGame, game_block};
    use bashni_rules::{Position, RuleSet, Variant};

    fn block(index: u64) -> String {
        let game = PlayedGame {
            white_result: 1.0,
            plies: 12,
            positions: vec![
                Position::from_fen(&RuleSet::new(Variant::Lasca), "W:c3w,e5b 0 1").unwrap(),
            ],
            scores: vec![40],
        };
        game_block(Variant::Lasca, index, &game)
    }

    /// Shards join into one file of their complete games; a torn game is
    /// dropped and overlapping files are refused.
    #[test]
    fn shards_merge_and_overlaps_are_refused() {
        let dir = std::env::temp_dir().join(format!("bashni-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, block(0) + &block(2)).unwrap();
        std::fs::write(&b, block(1) + "W:c3w,e5b 0 1\t1\tlasca\t3\n").unwrap();
        let out = dir.join("all.txt");
        let args = MergeArgs {
            data: vec![a.clone(), b.clone()],
            out: out.clone(),
        };
        assert_eq!(merge(&args).unwrap(), 3);
        let merged = std::fs::read_to_string(&out).unwrap();
        assert_eq!(merged, block(0) + &block(2) + &block(1));
        assert!(merge(&args).unwrap_err().to_string().contains("exists"));
        let overlap = MergeArgs {
            data: vec![a.clone(), a.clone()],
            out: dir.join("twice.txt"),
        };
        let message = merge(&overlap).unwrap_err().to_string();
        assert!(message.contains("lasca game 0 is in both"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shards_deal_games_out_disjointly() {
        use crate::selfplay::{in_shard, parse_shard};
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        for bad in ["0/3", "4/3", "x", "1/"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        for index in 0..50 {
            let owners = (1..=4).filter(|&k| in_shard(Some((k, 4)), index)).count();
            assert_eq!(owners, 1);
            assert!(in_shard(None, index));
        }
    }
}
