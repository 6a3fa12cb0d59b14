/**
 * The composition root's student part: `student.kind` → the student of each
 * session (src/core/protocols/studentProtocol.ts). One case per kind; a
 * student is one file under students/.
 */
import type { StudentFactory } from '../core/protocols/studentProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';
import { BackendUnavailableError } from './backendUnavailable';
import { openAiStudents } from './students/openaiStudent';
import { scriptedStudents } from './students/scriptedStudent';

export type StudentBackendOptions = {
  /** Where api_key_env names are looked up (process.env by default). */
  env?: Readonly<Record<string, string | undefined>>;
};

export function studentBackend(student: Recipe['student'], options: StudentBackendOptions = {}): StudentFactory {
  switch (student.kind) {
    case 'scripted':
      return scriptedStudents;
    case 'openai': {
      const { endpoint } = student;
      let apiKey = 'none'; // a local server takes any key; the client insists on one
      if (endpoint.api_key_env !== undefined) {
        const value = (options.env ?? process.env)[endpoint.api_key_env];
        if (value === undefined || value === '') {
          throw new BackendUnavailableError([
            `the student endpoint ${endpoint.base_url} needs its key in the environment variable ${endpoint.api_key_env}, which is not set`,
          ]);
        }
        apiKey = value;
      }
      return openAiStudents({
        baseUrl: endpoint.base_url,
        model: endpoint.model,
        apiKey,
        persona: student.persona,
        temperature: student.temperature,
        maxTokens: student.max_tokens,
      });
    }
    default: {
      const unknown: never = student;
      throw new Error(`unknown student kind ${JSON.stringify(unknown)}`);
    }
  }
}
