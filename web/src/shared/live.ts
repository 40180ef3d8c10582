// An answer being streamed into a message bubble: re-rendered as Markdown
// at most once per animation frame, `aria-busy` until it ends. The first
// token's latency from its SSE frame to the paint that shows it is
// recorded as a `confer:first-token-paint` performance measure (read by the
// browser test, reported in docs/performance.md).

import { render } from "./markdown";

/** The streaming answer of one bubble (`node` holds a `.body`). */
export class LiveAnswer {
  private text = "";
  private scheduled = false;
  private firstFrameAt: number | null = null;

  constructor(
    readonly node: HTMLElement,
    private readonly onPaint: (node: HTMLElement) => void = () => {},
  ) {
    this.node.setAttribute("aria-busy", "true");
  }

  private paint(): void {
    this.node.querySelector(".body")?.replaceChildren(render(this.text));
    this.onPaint(this.node);
  }

  /** Adds a token's delta; the bubble shows it at the next frame. */
  add(delta: string): void {
    const first = this.text === "" && this.firstFrameAt === null;
    this.text += delta;
    if (first) this.firstFrameAt = performance.now();
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.paint();
      const start = this.firstFrameAt;
      if (start === null || start < 0) return;
      this.firstFrameAt = -1;
      // A task queued in the frame's callback runs after that frame's paint.
      setTimeout(() => performance.measure("confer:first-token-paint", { start, end: performance.now() }), 0);
    });
  }

  /** Ends the answer with the stream's final text (null: what was streamed). */
  finish(content: string | null): void {
    if (content !== null) this.text = content;
    this.paint();
    this.node.setAttribute("aria-busy", "false");
  }
}
