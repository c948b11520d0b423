// The players' chat of a room: the two seated people talk to each other.
// The server sends it to the two seats only, never to a watcher, and
// only between two people (not with an engine). Drawn from the server's
// `chat` message, the names from the room's seats; a player may hide it
// (this browser remembers).

import { $, fill, h } from "./text.js";

const HIDDEN_KEY = "bashni.chatHidden";

export class Chat {
  // send(message): to the server.
  constructor(send) {
    this.send = send;
    this.roomId = null;
    this.lines = [];
    this.seats = [null, null];
    this.mySeat = null;
    this.hidden = localStorage.getItem(HIDDEN_KEY) === "yes";
    $("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("chat-input").value.trim();
      if (!text) return;
      this.send({ type: "say", text });
      $("chat-input").value = "";
    });
    $("chat-toggle").addEventListener("click", () => {
      this.hidden = !this.hidden;
      localStorage.setItem(HIDDEN_KEY, this.hidden ? "yes" : "no");
      this.draw();
    });
  }

  // The room shown: its id, seats and the viewer's seat (null for a
  // watcher). Another room starts with no lines until its chat comes.
  room(state, mySeat) {
    if (state.id !== this.roomId) this.lines = [];
    this.roomId = state.id;
    this.seats = state.seats;
    this.mySeat = mySeat;
    this.draw();
  }

  // The server's `chat` message: every line of the room's chat.
  receive(message) {
    if (message.room !== this.roomId) return;
    this.lines = message.lines;
    this.draw();
  }

  // A chat to show: the viewer sits, and both seats hold people.
  open() {
    const people = this.seats.every((seat) => seat && !seat.engine);
    return this.mySeat !== null && people;
  }

  draw() {
    $("chat").hidden = !this.open();
    $("chat-lines").hidden = this.hidden;
    $("chat-form").hidden = this.hidden;
    $("chat-toggle").textContent = this.hidden ? "Show chat" : "Hide chat";
    if (this.hidden) return;
    const list = $("chat-lines");
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    fill(list, this.lines.map((line) => this.lineItem(line)));
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  lineItem(line) {
    const seat = this.seats[line.seat];
    const mine = line.seat === this.mySeat;
    const when = new Date(line.sent_at_ms).toLocaleTimeString();
    return h("li", { class: mine ? "mine" : "theirs", title: when }, h("b", {}, seat ? seat.name : "?"), " ", line.text);
  }
}
