import { describe, expect, it } from 'vitest';
import type { ToolUse } from '../../core/protocols/engineProtocol';
import { nextStateText, untrainableReason } from './liveSessions';

const tools: ToolUse['tools'] = [{ name: 'read', description: 'read a file', parameters: { type: 'object', properties: {} } }] as ToolUse['tools'];
const use = (choice: ToolUse['choice']): ToolUse => ({ tools, choice, parallelToolCalls: null });
const plain = [{ role: 'user' as const, content: 'hi' }];

describe('live turns', () => {
  it('never trains a forced tool call (its log-probs are not the policy’s own) or a conversation with tool turns', () => {
    expect(untrainableReason({ messages: plain })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('auto') })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('none') })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('required') })).toMatch(/forced tool call/);
    expect(untrainableReason({ messages: plain, toolUse: use({ name: 'read' }) })).toMatch(/forced tool call/);
    expect(untrainableReason({ messages: [...plain, { role: 'tool', content: 'x', toolCallId: 'c1' }] })).toMatch(/tool turns/);
  });

  it('reads a next state as the user’s words, a tool result marked as one', () => {
    expect(
      nextStateText([
        { role: 'tool', content: '72°F', toolCallId: 'c1' },
        { role: 'user', content: 'thanks' },
      ]),
    ).toBe('[tool result] 72°F\n\nthanks');
    expect(nextStateText([])).toBe('');
  });
});
