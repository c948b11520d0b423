//! The one declaration of the evaluation's parameters: for each, its index
//! in a weight table, its name (as `eval`, `bashni tune` and the weights
//! files print it), the [`Term`] it is reported under, and how the tuner
//! treats it ([`Tuning`]).
//!
//! Everything that maps a parameter to a name, term or tuning reads
//! [`PARAMS`]; nothing matches on indices. This file depends on nothing
//! else of the crate, because the build script includes it too (through
//! `#[path]`) to check the weights files against the same declaration.

/// The evaluation terms, in the order `explain` lists them. Each groups
/// one or more parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Columns commanded (material).
    Commanders,
    /// King commanders.
    Kings,
    /// Own pieces under a commander.
    Armour,
    /// Enemy pieces held under a commander.
    Prisoners,
    /// How far the men have come.
    Advancement,
    /// Men still guarding the back rank.
    BackRank,
    /// Columns on the central squares.
    Centre,
    /// Plain moves available.
    Mobility,
    /// Columns the enemy could jump.
    Vulnerability,
    /// The side to move.
    Tempo,
}

impl Term {
    /// Every term, in report order.
    pub const ALL: [Term; 10] = [
        Term::Commanders,
        Term::Kings,
        Term::Armour,
        Term::Prisoners,
        Term::Advancement,
        Term::BackRank,
        Term::Centre,
        Term::Mobility,
        Term::Vulnerability,
        Term::Tempo,
    ];

    /// The term's name in `eval` reports.
    pub fn name(self) -> &'static str {
        match self {
            Term::Commanders => "commanders",
            Term::Kings => "kings",
            Term::Armour => "armour",
            Term::Prisoners => "prisoners",
            Term::Advancement => "advancement",
            Term::BackRank => "back-rank",
            Term::Centre => "centre",
            Term::Mobility => "mobility",
            Term::Vulnerability => "vulnerability",
            Term::Tempo => "tempo",
        }
    }
}

/// How `bashni tune` treats a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tuning {
    /// Fitted, each part (midgame, endgame) kept within [`WEIGHT_LIMIT`].
    Free,
    /// Held at its weight: its count is tied to other counts in every
    /// position, so the data cannot tell its weight from theirs, and one
    /// weight of each tie has to be pinned (the reason is at the entry).
    Pinned,
}

/// Every weight part lies in `-WEIGHT_LIMIT..=WEIGHT_LIMIT` centi-men: the
/// build rejects a weights file outside it and the tuner clamps to it.
/// Ten men is far above any weight a fit has produced (the largest is
/// under six) and far below where a sum of counts could overflow.
pub const WEIGHT_LIMIT: i32 = 1000;

/// One parameter as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// The name in `eval`/`tune` output and in the weights files.
    pub name: &'static str,
    /// The term it is reported under.
    pub term: Term,
    /// Whether the tuner moves it.
    pub tuning: Tuning,
}

/// The weighted parameters. Each associated constant is the index of the
/// first parameter of a group in a weight table (a group of several is
/// indexed by adding to it); what each counts (per side, White's count
/// minus Black's) is said at the constant. Names, terms and tuning are in
/// [`PARAMS`].
pub struct Param;

/// Declares the parameter groups: `CONSTANT @ first index in Term:
/// ["name" Tuning, ...];`. Gives the constants of [`Param`], [`PARAMS`]
/// (one entry per parameter, in index order) and [`Param::COUNT`]; the
/// checks below fail the build if the indices are not the running count
/// or a name is repeated.
macro_rules! parameters {
    ($(
        $(#[doc = $doc:literal])*
        $group:ident @ $first:literal in $term:ident: [$($name:literal $tuning:ident),+ $(,)?];
    )+) => {
        impl Param {
            $(
                $(#[doc = $doc])*
                pub const $group: usize = $first;
            )+
            /// How many parameters a weight table holds.
            pub const COUNT: usize = GROUPS[GROUPS.len() - 1].0 + GROUPS[GROUPS.len() - 1].1;
        }

        /// Each group's (first index, size), in declaration order.
        const GROUPS: &[(usize, usize)] = &[$(($first, [$($name),+].len())),+];

        /// Every parameter, in index order.
        pub const PARAMS: [ParamInfo; Param::COUNT] = [
            $($(ParamInfo { name: $name, term: Term::$term, tuning: Tuning::$tuning },)+)+
        ];
    };
}

parameters! {
    /// Each column a side commands, whatever its top. Pinned: it fixes the
    /// scale (a man is 100).
    COMMANDER @ 0 in Commanders: ["commander" Pinned];
    /// Extra for a king on top: flying in Bashni, a stepping officer in Lasca.
    KING @ 1 in Kings: ["king" Free];
    /// The first, second, and third and deeper own piece under a commander:
    /// armour keeps the square when the top is taken, with diminishing worth.
    ARMOUR @ 2 in Armour: ["armour-1" Free, "armour-2" Free, "armour-3+" Free];
    /// Extra for an own king inside the armour: it leads as a king once
    /// uncovered.
    BURIED_KING @ 5 in Kings: ["buried-king" Free];
    /// Each piece held prisoner, counted against the side holding it, by
    /// the guard of its column (own pieces there: 1, 2, 3 or more). Under a
    /// lone commander one jump frees them all. The third is pinned: no
    /// piece leaves the board, so a side's commanders, armour and pieces
    /// held prisoner add up to its starting count, and the same amount
    /// added to armour, prisoners, kings, advancement and back rank would
    /// leave every score unchanged; prisoners under three or more guards
    /// (nearly lost for good) keep their hand-set weight to pin that down.
    PRISONER @ 6 in Prisoners: [
        "prisoner-guard-1" Free,
        "prisoner-guard-2" Free,
        "prisoner-guard-3+" Pinned,
    ];
    /// Extra for a king held prisoner, by the same guard.
    PRISONER_KING @ 9 in Prisoners: [
        "prisoner-king-guard-1" Free,
        "prisoner-king-guard-2" Free,
        "prisoner-king-guard-3+" Free,
    ];
    /// Man-commanded columns by rank counted from the own side (8 entries).
    /// The first is pinned: a man on its first rank is counted by
    /// `back-rank` as well.
    ADVANCEMENT @ 12 in Advancement: [
        "advancement-1" Pinned,
        "advancement-2" Free,
        "advancement-3" Free,
        "advancement-4" Free,
        "advancement-5" Free,
        "advancement-6" Free,
        "advancement-7" Free,
        "advancement-8" Free,
    ];
    /// Man-commanded columns on the own back rank: they stop enemy crowning.
    BACK_RANK @ 20 in BackRank: ["back-rank" Free];
    /// Columns on the centre squares.
    CENTRE @ 21 in Centre: ["centre" Free];
    /// Each empty square a man could step to.
    MAN_MOBILITY @ 22 in Mobility: ["man-mobility" Free];
    /// Each empty square a king could move to.
    KING_MOBILITY @ 23 in Mobility: ["king-mobility" Free];
    /// Each enemy column this side could jump at once.
    ATTACKED @ 24 in Vulnerability: ["attacked" Free];
    /// Each prisoner such a jump would free (a lone commander on prisoners).
    ATTACKED_PRISONER @ 25 in Vulnerability: ["attacked-prisoner" Free];
    /// Each king-topped column among the jumpable ones.
    ATTACKED_KING @ 26 in Vulnerability: ["attacked-king" Free];
    /// For the side to move.
    TEMPO @ 27 in Tempo: ["tempo" Free];
}

// The declared first indices must be the running count, so adding to a
// group's constant stays inside the group.
const _: () = {
    let mut next = 0;
    let mut i = 0;
    while i < GROUPS.len() {
        assert!(
            GROUPS[i].0 == next,
            "a parameter group's index is not where the previous group ends"
        );
        next += GROUPS[i].1;
        i += 1;
    }
};

// Names are the keys of the weights files and of `--drop`.
const _: () = {
    let mut i = 0;
    while i < PARAMS.len() {
        let mut j = i + 1;
        while j < PARAMS.len() {
            assert!(
                !same(PARAMS[i].name, PARAMS[j].name),
                "two parameters share a name"
            );
            j += 1;
        }
        i += 1;
    }
};

/// String equality usable in constants.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Param {
    /// The declaration of parameter `param`.
    pub fn info(param: usize) -> &'static ParamInfo {
        &PARAMS[param]
    }

    /// The parameter's name.
    pub fn name(param: usize) -> &'static str {
        PARAMS[param].name
    }

    /// The term a parameter is shown under.
    pub fn term(param: usize) -> Term {
        PARAMS[param].term
    }

    /// The parameter of this name, if any.
    pub fn by_name(name: &str) -> Option<usize> {
        PARAMS.iter().position(|p| p.name == name)
    }

    /// Every parameter's name, in index order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        PARAMS.iter().map(|p| p.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_their_terms_in_order() {
        assert_eq!(Param::COUNT, 28);
        assert_eq!(Param::name(Param::ARMOUR + 2), "armour-3+");
        assert_eq!(Param::term(Param::ADVANCEMENT + 7), Term::Advancement);
        assert_eq!(Param::term(Param::BURIED_KING), Term::Kings);
        assert_eq!(Param::term(Param::ATTACKED_KING), Term::Vulnerability);
        assert_eq!(Param::by_name("tempo"), Some(Param::TEMPO));
        assert_eq!(Param::by_name("centr"), None);
        // Every term has at least one parameter, so `explain` lists none empty by design.
        for term in Term::ALL {
            assert!(PARAMS.iter().any(|p| p.term == term), "{term:?}");
        }
    }
}
