// The tests' outside client: the official `openai` client in one conversation,
// each request carrying the conversation so far (as OpenClaw's do), with the
// headers the test gives each turn (OpenClaw-RL's, OpenClaw's affinity, none).
import type OpenAI from 'openai';

type Message = OpenAI.ChatCompletionMessageParam;

export class ScriptedConversation {
  readonly messages: Message[] = [];
  constructor(
    private readonly client: OpenAI,
    private readonly model: string,
    /** What the user says, turn by turn. */
    private readonly words: readonly string[],
    private readonly headers: (turn: number, last: boolean) => Record<string, string>,
    private readonly maxTokens = 24,
  ) {}

  /** Says turn `turn`'s words and keeps the reply in the conversation. */
  async say(turn: number): Promise<void> {
    this.messages.push({ role: 'user', content: this.words[turn]! });
    const completion = await this.client.chat.completions.create(
      { model: this.model, messages: this.messages, max_completion_tokens: this.maxTokens },
      { headers: this.headers(turn, turn === this.words.length - 1) },
    );
    this.messages.push({ role: 'assistant', content: completion.choices[0]!.message.content ?? '' });
  }
}

/** OpenClaw-RL's headers for a session id: main turns, the last one ending the session. */
export const openClawRlHeaders = (id: string) => (_turn: number, last: boolean) => ({
  'X-Session-Id': id,
  'X-Turn-Type': 'main',
  'X-Session-Done': String(last),
});
