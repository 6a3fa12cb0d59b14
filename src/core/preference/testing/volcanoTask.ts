// A topic question of the preference recipes' kind (docs/design.md, A stated
// preference) for the tests of its users: the floor is a mention of the topic.
import type { Task } from '../../tasks/task';

export const VOLCANO_TASK: Task = {
  id: 'q-01',
  index: 1,
  template: 'topic',
  instance: 'topic:What is a volcano?',
  question: 'What is a volcano?',
  steps: [],
  answer: 0,
  answerText: '',
  firstMessage: 'What is a volcano?',
  mentions: ['volcano', 'lava'],
};
