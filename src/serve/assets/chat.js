// The players' chat of a room: the two seated people talk to each other.
// The server sends it to the two seats only, never to a watcher, and
// only between two people (not with an engine). Drawn from the server's
// `chat` message, the names from the room's seats; a player may hide it
// (this browser remembers).

import { $, fill, h } from "./text.js";

const HIDDEN_KEY = "bashni.chatHidden";
// The server's most characters (code points) in a line.
const MAX_LINE_CHARS = 140;

export class Chat {
  // send(message): to the server.
  constructor(send) {
    this.send = send;
    this.roomId = null;
    this.lines = [];
    this.seats = [null, null];
    this.mySeat = null;
    // The line sent and not yet back: the field keeps it until then, so
    // a line the server refuses (too fast, too long) is not lost.
    this.pending = null;
    this.hidden = localStorage.getItem(HIDDEN_KEY) === "yes";
    // A line is at most 140 characters, as the server counts them (an
    // emoji is one; a field's maxlength would count it as two).
    $("chat-input").addEventListener("input", () => {
      const chars = [...$("chat-input").value];
      if (chars.length > MAX_LINE_CHARS) $("chat-input").value = chars.slice(0, MAX_LINE_CHARS).join("");
    });
    $("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("chat-input").value.trim();
      if (!text) return;
      this.pending = text;
      this.send({ type: "say", text });
    });
    $("chat-toggle").addEventListener("click", () => {
      this.hidden = !this.hidden;
      localStorage.setItem(HIDDEN_KEY, this.hidden ? "yes" : "no");
      this.draw();
    });
  }

  // The room shown: its state, and the viewer's seat there (null for a
  // watcher). Another room starts with no lines until its chat comes.
  room(state, mySeat) {
    if (state.id !== this.roomId) {
      this.roomId = state.id;
      this.lines = [];
      this.pending = null;
      fill($("chat-lines"));
    }
    this.seats = state.seats;
    this.mySeat = mySeat;
    this.draw();
  }

  // No room is shown (the page went elsewhere): nothing of its chat stays.
  forget() {
    this.roomId = null;
    this.mySeat = null;
    this.lines = [];
    fill($("chat-lines"));
    this.draw();
  }

  // The server's `chat` message: every line of the room's chat. Only the
  // lines not shown yet are added, so a screen reader reads those alone.
  receive(message) {
    if (message.room !== this.roomId) return;
    const list = $("chat-lines");
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    const grown = message.lines.length >= this.lines.length;
    const fresh = grown ? message.lines.slice(this.lines.length) : message.lines;
    if (!grown) fill(list);
    list.append(...fresh.map((line) => this.lineItem(line)));
    this.lines = message.lines;
    if (atBottom) list.scrollTop = list.scrollHeight;
    if (fresh.some((line) => line.seat === this.mySeat && line.text === this.pending)) {
      if ($("chat-input").value.trim() === this.pending) $("chat-input").value = "";
      this.pending = null;
    }
  }

  // A chat to show: the viewer sits, and both seats hold people.
  open() {
    const people = this.seats.every((seat) => seat && !seat.engine);
    return this.roomId !== null && this.mySeat !== null && people;
  }

  draw() {
    $("chat").hidden = !this.open();
    $("chat-lines").hidden = this.hidden;
    $("chat-form").hidden = this.hidden;
    $("chat-toggle").textContent = this.hidden ? "Show chat" : "Hide chat";
  }

  lineItem(line) {
    const seat = this.seats[line.seat];
    const mine = line.seat === this.mySeat;
    const when = new Date(line.sent_at_ms).toLocaleTimeString();
    return h("li", { class: mine ? "mine" : "theirs", title: when }, h("b", {}, seat ? seat.name : "?"), " ", line.text);
  }
}
