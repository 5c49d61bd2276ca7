import type { ChatRequest, ToolCall } from "../types.ts";

/** What a simulator responder sees: the request and the replay's identity, already normalised. */
export type SimContext = {
  request: ChatRequest;
  /** The sim model's name (`sim:…`, without any `?knobs`). */
  model: string;
  /** The seed as a decimal string (64-bit seeds travel as strings). */
  seed: string;
  /** Which replay (run_idx) this client plays; 0-based. */
  replay: number;
  /** Probability in [0, 1] that this replay deviates from the modal behaviour. */
  divergence: number;
  /** The first user message's text ("" if none). */
  userText: string;
  /** Assistant messages already in the conversation. */
  turn: number;
};

/** One assistant message. */
export type SimReply = { content: string | null; tool_calls?: ToolCall[]; finish_reason: string };

/**
 * A way of answering: returns a reply, or `undefined` to let the next responder try. The simulator
 * tries its responders in order; the built-in text responder at the end always answers.
 */
export type SimResponder = (ctx: SimContext) => SimReply | undefined;
