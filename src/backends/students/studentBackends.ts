/**
 * The students: `scripted` (the deterministic student of the embedded
 * homework, scriptedStudent.ts, or the user of a recipe's stated preference,
 * preferenceStudent.ts) and `openai` (a person-like student behind
 * an OpenAI-compatible endpoint, openaiStudent.ts).
 */
import { z } from 'zod';
import { endpointSchema } from '../../core/recipe/recipeSchema';
import { BackendUnavailableError } from '../backendUnavailable';
import { studentPart, type BackendDescriptor, type Env } from '../backendDescriptor';
import { openAiStudents } from './openaiStudent';
import { preferenceStudents } from './preferenceStudent';
import { scriptedStudents } from './scriptedStudent';

/** A student is no worker process of the lab: it asks for no device and is never a Ray job. */
const inProcess = { gpu: 'optional', rayJob: { refused: 'a student runs inside the lab, not as a Ray job' } } as const;

export const scriptedStudentSection = z.strictObject({ kind: z.literal('scripted') });

export const openAiStudentSection = z.strictObject({
  kind: z.literal('openai'),
  endpoint: endpointSchema,
  persona: z.string().min(1).describe('who the student is; the reaction contract (complaint, save request, HOMEWORK_DONE) is added to it'),
  temperature: z.number().min(0).max(2).default(0.7),
  max_tokens: z.int().positive().default(512).describe("room for the reaction (and a thinking model's reasoning before it)"),
});

export const scriptedStudentBackend: BackendDescriptor = {
  kind: 'scripted',
  student: studentPart({
    section: scriptedStudentSection,
    placement: inProcess,
    create: (_, { preference }) => (preference === undefined ? scriptedStudents : preferenceStudents(preference)),
  }),
};

/** The endpoint's key from the environment variable the recipe names; a local server takes any key, the client insists on one. */
function apiKeyOf(endpoint: z.infer<typeof endpointSchema>, env: Env): string {
  if (endpoint.api_key_env === undefined) return 'none';
  const value = env[endpoint.api_key_env];
  if (value === undefined || value === '') {
    throw new BackendUnavailableError([
      `the student endpoint ${endpoint.base_url} needs its key in the environment variable ${endpoint.api_key_env}, which is not set`,
    ]);
  }
  return value;
}

export const openAiStudentBackend: BackendDescriptor = {
  kind: 'openai',
  student: studentPart({
    section: openAiStudentSection,
    placement: inProcess,
    create: (student, { env, preference }) => {
      if (preference !== undefined) {
        throw new BackendUnavailableError([
          'the openai student reacts as its persona says, not by a stated preference: a recipe with `preference` has the scripted student',
        ]);
      }
      return openAiStudents({
        baseUrl: student.endpoint.base_url,
        model: student.endpoint.model,
        apiKey: apiKeyOf(student.endpoint, env ?? process.env),
        persona: student.persona,
        temperature: student.temperature,
        maxTokens: student.max_tokens,
      });
    },
  }),
};
