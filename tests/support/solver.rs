//! A deliberately simple exhaustive solver, independent of the search.
//!
//! It answers one question: can the side to move force a win (the
//! opponent left with no legal move) within `plies` plies, and with which
//! first moves? Plain minimax over `legal_moves` / `make` / `unmake`; the
//! only pruning is the short-circuit of a yes/no answer (alpha-beta with a
//! zero-width window). No evaluation, no table, no draw rules: only short
//! wins are asked for, well inside every draw limit.
//!
//! A ply count is the number of half-moves up to and including the winning
//! side's last move, so a win is always an odd number of plies.

use bashni_rules::{Move, Position};

/// Counts nodes and gives up past a budget (the miner's safety valve).
pub struct Solver {
    pub nodes: u64,
    pub budget: u64,
}

/// The budget ran out before the question was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBudget;

impl Default for Solver {
    fn default() -> Self {
        Solver::with_budget(u64::MAX)
    }
}

impl Solver {
    pub fn with_budget(budget: u64) -> Solver {
        Solver { nodes: 0, budget }
    }

    fn visit(&mut self) -> Result<(), OutOfBudget> {
        self.nodes += 1;
        if self.nodes > self.budget {
            Err(OutOfBudget)
        } else {
            Ok(())
        }
    }

    /// Whether the side to move wins within `plies` plies.
    pub fn side_wins(&mut self, pos: &mut Position, plies: u32) -> Result<bool, OutOfBudget> {
        if plies == 0 {
            return Ok(false);
        }
        for mv in pos.legal_moves() {
            if self.move_wins(pos, &mv, plies)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether playing `mv` wins within `plies` plies (`mv` is the first).
    pub fn move_wins(
        &mut self,
        pos: &mut Position,
        mv: &Move,
        plies: u32,
    ) -> Result<bool, OutOfBudget> {
        if plies == 0 {
            return Ok(false);
        }
        self.visit()?;
        let undo = pos.make(mv);
        let replies = pos.legal_moves();
        let result = if replies.is_empty() {
            Ok(true)
        } else if plies < 3 {
            Ok(false)
        } else {
            self.all_replies_lose(pos, &replies, plies - 2)
        };
        pos.unmake(mv, undo);
        result
    }

    fn all_replies_lose(
        &mut self,
        pos: &mut Position,
        replies: &[Move],
        plies: u32,
    ) -> Result<bool, OutOfBudget> {
        for reply in replies {
            self.visit()?;
            let undo = pos.make(reply);
            let wins = self.side_wins(pos, plies);
            pos.unmake(reply, undo);
            if !wins? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every first move that wins within `plies` plies.
    pub fn winning_moves(&mut self, pos: &Position, plies: u32) -> Result<Vec<Move>, OutOfBudget> {
        let mut pos = pos.clone();
        let mut winners = Vec::new();
        for mv in pos.legal_moves() {
            if self.move_wins(&mut pos, &mv, plies)? {
                winners.push(mv);
            }
        }
        Ok(winners)
    }

    /// The fewest plies (odd, at most `max`) in which `mv` forces a win.
    pub fn shortest_win(
        &mut self,
        pos: &Position,
        mv: &Move,
        max: u32,
    ) -> Result<Option<u32>, OutOfBudget> {
        let mut pos = pos.clone();
        for plies in (1..=max).step_by(2) {
            if self.move_wins(&mut pos, mv, plies)? {
                return Ok(Some(plies));
            }
        }
        Ok(None)
    }
}

/// The verdict on one position: its shortest win and who achieves it.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Fewest plies in which the side to move forces a win.
    pub plies: u32,
    /// The first moves that win within `plies`.
    pub winners: Vec<Move>,
}

/// The shortest forced win of the side to move, up to `max` plies.
pub fn solve(
    solver: &mut Solver,
    pos: &Position,
    max: u32,
) -> Result<Option<Verdict>, OutOfBudget> {
    for plies in (1..=max).step_by(2) {
        let winners = solver.winning_moves(pos, plies)?;
        if !winners.is_empty() {
            return Ok(Some(Verdict { plies, winners }));
        }
    }
    Ok(None)
}
