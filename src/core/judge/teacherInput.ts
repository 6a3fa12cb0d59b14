// The hint-conditioned teacher's input (docs/internals.md): the conversation
// up to the judged turn with the hint appended to the last user message as
// "\n\n" + hint. The embedded model was pretrained on exactly this form.

export type ChatMessage = { readonly role: 'system' | 'user' | 'assistant'; readonly content: string };

export function appendHintToLastUser(messages: readonly ChatMessage[], hint: string): ChatMessage[] {
  const text = hint.trim();
  if (text === '') throw new Error('appendHintToLastUser: the hint is empty');
  const at = messages.map((m) => m.role).lastIndexOf('user');
  if (at === -1) throw new Error('appendHintToLastUser: the conversation has no user message to carry the hint');
  return messages.map((m, i) => (i === at ? { role: m.role, content: `${m.content}\n\n${text}` } : m));
}
