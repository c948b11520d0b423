// The room's sounds, as lichess plays them: a move, a capture, and the
// end of a game, for players and watchers alike. Made by the Web Audio
// API, so nothing is fetched; "Sound" turns them off in this browser
// (it remembers). A browser lets a page sound only after the player has
// clicked or typed in it, so the first sounds of a page opened and never
// touched are silent.

const OFF_KEY = "bashni.soundOff";

// The sound a room's new state calls for after the state shown: the
// end of the game, else a move just played (a capture if it jumped),
// else none (a first state, another room or game, a takeback, news).
export function soundFor(before, after) {
  if (!before || before.id !== after.id || before.game_no !== after.game_no) return null;
  if (before.phase !== "over" && after.phase === "over") return "end";
  if (after.moves.length !== before.moves.length + 1 || !after.last_move) return null;
  return after.last_move.jumped.length > 0 ? "capture" : "move";
}

// Notes of each sound: [frequency in Hz, start in s, length in s].
const NOTES = {
  move: [[520, 0, 0.09]],
  capture: [[390, 0, 0.08], [300, 0.07, 0.11]],
  end: [[523, 0, 0.16], [659, 0.14, 0.16], [784, 0.28, 0.3]],
};

export class Sounds {
  // button: the element that turns sounds on and off.
  constructor(button) {
    this.button = button;
    this.context = null;
    this.off = localStorage.getItem(OFF_KEY) === "yes";
    button.addEventListener("click", () => {
      this.off = !this.off;
      localStorage.setItem(OFF_KEY, this.off ? "yes" : "no");
      this.label();
    });
    this.label();
  }

  label() {
    this.button.textContent = this.off ? "Sound: off" : "Sound: on";
  }

  // Play `kind` (a key of NOTES), if sounds are on; the page's body
  // keeps the last one asked for in data-sound.
  play(kind) {
    if (!kind || this.off) return;
    document.body.dataset.sound = kind;
    const context = this.audio();
    if (!context) return;
    const now = context.currentTime;
    for (const [frequency, start, length] of NOTES[kind]) {
      const tone = context.createOscillator();
      const gain = context.createGain();
      tone.type = "triangle";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.2, now + start);
      gain.gain.exponentialRampToValueAtTime(0.001, now + start + length);
      tone.connect(gain).connect(context.destination);
      tone.start(now + start);
      tone.stop(now + start + length);
    }
  }

  // The page's audio, made on first use; none where the browser has no
  // Web Audio.
  audio() {
    if (!this.context && window.AudioContext) this.context = new AudioContext();
    if (this.context && this.context.state === "suspended") this.context.resume().catch(() => {});
    return this.context;
  }
}
