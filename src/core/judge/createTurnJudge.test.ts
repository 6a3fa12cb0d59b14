import { describe, expect, it } from 'vitest';
import { createRng } from '../tasks/rng';
import { complaintFor } from '../tasks/student';
import { createTurnJudge } from './createTurnJudge';

describe('createTurnJudge', () => {
  it('builds the rule judge of the embedded recipe', async () => {
    const judge = createTurnJudge({ prm: { kind: 'rule' }, hint: { kind: 'rule', min_chars: 10 } });
    const complaint = complaintFor(['bold'], createRng(2));
    const j = await judge.judgeTurn({ assistantOutput: '**36**', nextState: complaint.text });
    expect(j).toMatchObject({ score: -1, hint: complaint.hindsight, hintAccepted: true, backends: { prm: 'rule', hint: 'rule' } });
  });

  it('refuses an endpoint whose key variable is not set, naming it', () => {
    const endpoint = { base_url: 'http://127.0.0.1:30002/v1', model: 'm', api_key_env: 'GATELAB_TEST_JUDGE_KEY' };
    expect(() => createTurnJudge({ prm: { kind: 'openai', endpoint, votes: 3 }, hint: { kind: 'rule', min_chars: 10 } }, { env: {} })).toThrow(
      /GATELAB_TEST_JUDGE_KEY, which is not set/,
    );
    expect(() =>
      createTurnJudge(
        { prm: { kind: 'openai', endpoint, votes: 3 }, hint: { kind: 'openai', endpoint, min_chars: 10 } },
        { env: { GATELAB_TEST_JUDGE_KEY: 'k' } },
      ),
    ).not.toThrow();
  });
});
