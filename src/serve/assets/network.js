// The connection to the server: one WebSocket, opened again after a loss
// with a growing pause (0.5 s doubling to 4 s: a player's clock may be
// running), at once when the browser says the network is back, and a
// visible status. On every (re)connection `onOpen` runs so the page asks
// again for what it shows: the server holds the state, the page only
// redraws it.

const MIN_PAUSE_MS = 500;
const MAX_PAUSE_MS = 4000;

export class Connection {
  constructor({ onMessage, onOpen, onStatus }) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus;
    this.pause = MIN_PAUSE_MS;
    this.socket = null;
    this.retry = null;
    window.addEventListener("online", () => this.retryNow());
    // A page left for another (kept in the back-forward cache) closes its
    // socket, or it would seem online to the room it showed; it opens a
    // new one if it is shown again.
    window.addEventListener("pagehide", () => this.suspend());
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.open();
    });
    this.open();
  }

  suspend() {
    clearTimeout(this.retry);
    this.retry = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
  }

  // Reconnect now rather than at the end of the pause.
  retryNow() {
    if (this.retry === null) return;
    clearTimeout(this.retry);
    this.retry = null;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket = socket;
    this.onStatus("connecting");
    socket.onopen = () => {
      this.pause = MIN_PAUSE_MS;
      this.onStatus("online");
      this.onOpen();
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      const seconds = (this.pause / 1000).toFixed(1);
      this.onStatus(`offline: reconnecting in ${seconds} s`);
      this.retry = setTimeout(() => {
        this.retry = null;
        this.open();
      }, this.pause);
      this.pause = Math.min(MAX_PAUSE_MS, this.pause * 2);
    };
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }
}
