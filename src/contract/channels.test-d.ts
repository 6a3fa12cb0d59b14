import { describe, expectTypeOf, test } from 'vitest';
import type { ExactChannels, LabApi, LabEventName, LabHandlers, LabMethodName } from './index';
import { LAB_EVENT_CHANNELS, LAB_METHOD_CHANNELS, labEvents, labMethods } from './index';

describe('LabApi channel lists', () => {
  test('the method allow-list names exactly the methods of the contract', () => {
    expectTypeOf<ExactChannels<typeof LAB_METHOD_CHANNELS, typeof labMethods>>().toEqualTypeOf<true>();
  });

  test('the event allow-list names exactly the events of the contract', () => {
    expectTypeOf<ExactChannels<typeof LAB_EVENT_CHANNELS, typeof labEvents>>().toEqualTypeOf<true>();
  });

  test('the check fails when a channel is missing', () => {
    type WithoutOne = Exclude<(typeof LAB_METHOD_CHANNELS)[number], 'runs.openFiles'>[];
    expectTypeOf<ExactChannels<WithoutOne, typeof labMethods>>().toEqualTypeOf<{
      missing: 'runs.openFiles';
    }>();
    // @ts-expect-error a list with a missing channel is not `true`
    expectTypeOf<ExactChannels<WithoutOne, typeof labMethods>>().toEqualTypeOf<true>();
  });

  test('the check fails when a channel is extra', () => {
    type WithExtra = readonly [...typeof LAB_METHOD_CHANNELS, 'runs.deleteEverything'];
    expectTypeOf<ExactChannels<WithExtra, typeof labMethods>>().toEqualTypeOf<{
      extra: 'runs.deleteEverything';
    }>();
    // @ts-expect-error a list with an extra channel is not `true`
    expectTypeOf<ExactChannels<WithExtra, typeof labMethods>>().toEqualTypeOf<true>();
  });

  test('the typed API and the handler table cover every method', () => {
    expectTypeOf<keyof LabHandlers>().toEqualTypeOf<LabMethodName>();
    expectTypeOf<LabApi['runs']['openReference']>().parameter(0).toEqualTypeOf<{ id: string; purpose?: 'view' | 'overlay' | undefined }>();
    expectTypeOf<LabApi['app']['info']>().toBeCallableWith();
    expectTypeOf<LabApi['on']>().parameter(0).toEqualTypeOf<LabEventName>();
  });
});
