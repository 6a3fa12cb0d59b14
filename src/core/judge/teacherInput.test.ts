import { describe, expect, it } from 'vitest';
import { appendHintToLastUser, type ChatMessage } from './teacherInput';

describe('appendHintToLastUser', () => {
  const convo: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'reply' },
    { role: 'user', content: 'second' },
    { role: 'assistant', content: 'judged reply' },
  ];

  it('appends "\\n\\n" + hint to the last user message only, leaving the input untouched', () => {
    const out = appendHintToLastUser(convo, '  Write plain sentences.  ');
    expect(out[3]).toEqual({ role: 'user', content: 'second\n\nWrite plain sentences.' });
    expect(out.filter((_, i) => i !== 3)).toEqual(convo.filter((_, i) => i !== 3));
    expect(convo[3]?.content).toBe('second');
  });

  it('refuses an empty hint or a conversation without a user message', () => {
    expect(() => appendHintToLastUser(convo, ' ')).toThrow(/hint is empty/);
    expect(() => appendHintToLastUser([{ role: 'system', content: 's' }], 'hint text')).toThrow(/no user message/);
  });
});
