/**
 * The synthetic dataset of spec reasoning-quality.md §9.4: reasoning, adversarial and robustness items, in that
 * order. For a given seed it reproduces the original generator (senolali/RQEval `llm_datasets/synthetic_dataset.py`)
 * item for item in everything except wording: the ids, item order, types, RNG draw sequence, arithmetic, numeric
 * golds (with Python float formatting), the numbers quoted in each question and paraphrase, and the number of
 * perturbations per item.
 *
 * Wording: every question, paraphrase and explanatory gold below was written by us, as §9.4 requires ("Re-author
 * the template wording ourselves: keep the same arithmetic and gold logic, and do not copy the strings"). Only the
 * one-word logical golds ("false", "impossible") and the factual golds of the robustness probes ("30", "yes", …)
 * are the same, because they are the answers themselves.
 */
import { normalizePerturbations, type DatasetItem, type PerturbFn } from "./datasets.ts";
import { PyRandom } from "./pyrandom.ts";
import { pyFloatRepr } from "../python/index.ts";
import { pyRound } from "./round.ts";

export type SyntheticType = "reasoning" | "adversarial" | "robustness";

/** A generated item: exactly the five keys the original emits. */
export interface SyntheticItem extends DatasetItem {
  type: SyntheticType;
  perturbations: string[];
}

/** The numbers drawn for reasoning item `i` (all four are drawn whatever the template, §9.4 step 1). */
export interface ReasoningDraw {
  i: number;
  a: number;
  b: number;
  speed: number;
  hours: number;
}

export interface SyntheticOptions {
  /** Default 42. */
  seed?: bigint | number;
  /** Defaults 20/10/10 are the original class's; config.yaml uses {@link SYNTHETIC_CONFIG_SIZES}. */
  numReasoning?: number;
  numAdversarial?: number;
  numRobustness?: number;
  /**
   * Perturbation backend for adversarial items (§9.4 [D] option a or precomputed b). Without one each adversarial
   * item gets ["", "", ""], which is exactly what the original emits without spaCy/WordNet/NLLB, and which §4 [D]
   * treats as "no perturbations" (left out of RS), i.e. option (c).
   */
  adversarialPerturb?: PerturbFn;
}

/** The original class's default sizes (also `main.py`'s fallback). */
export const SYNTHETIC_DEFAULT_SIZES = { numReasoning: 20, numAdversarial: 10, numRobustness: 10 } as const;
/** The sizes of the paper's config.yaml: 100 + 75 + 75 = 250 items. */
export const SYNTHETIC_CONFIG_SIZES = { numReasoning: 100, numAdversarial: 75, numRobustness: 75 } as const;

type Nums = Omit<ReasoningDraw, "i">;

/** A reasoning template: question, gold and paraphrases from the same draws (§9.4 steps 2–5). */
interface ReasoningTemplate {
  question(n: Nums): string;
  answer(n: Nums): string;
  perturbations(n: Nums): string[];
}

// Order matters: item i uses template i mod 3. Each question and paraphrase quotes exactly the numbers the
// original's does (the parity test compares them), in our own wording.
const REASONING_TEMPLATES: readonly ReasoningTemplate[] = [
  {
    // Gold is Python str(round(a/b, 2)), so "5.0" and "1.33" (§2.3 keeps that quirk).
    question: ({ a, b }) =>
      `${a} apples are split evenly among a group of ${b}. How many apples does each member of the group receive?`,
    answer: ({ a, b }) => pyFloatRepr(pyRound(a / b, 2)),
    perturbations: ({ a, b }) => [
      `A group of ${b} shares ${a} apples so that everyone gets the same amount. How many apples is that per member?`,
      `Hand out ${a} apples evenly to a group of ${b}: how many apples end up with each member?`,
      `How many apples does each member hold after ${a} apples are divided fairly within a group of ${b}?`,
    ],
  },
  {
    question: ({ speed, hours }) =>
      `A train keeps a steady ${speed} km/h for ${hours} hours. What distance does it cover, in kilometres?`,
    answer: ({ speed, hours }) => String(speed * hours),
    perturbations: ({ speed, hours }) => [
      `Moving at a constant ${speed} km/h, how many kilometres does a train go in ${hours} hours?`,
      `For ${hours} hours a train runs at ${speed} km/h. How many kilometres has it gone?`,
      `What is the distance travelled by a train that holds ${speed} km/h for ${hours} hours?`,
    ],
  },
  {
    // Two paraphrases only, as in the original; RS pads the third slot with 0 (§4 fixed P). The question quotes
    // "1 worker" as a digit and the paraphrases spell it out, like the original's.
    question: ({ a, b }) =>
      `A team of ${a} workers finishes a job in ${b} days. Working alone at the same pace, how many days would 1 worker need?`,
    answer: ({ a, b }) => String(a * b),
    perturbations: ({ a, b }) => [
      `It takes ${a} workers ${b} days to do a job. How long would a lone worker take, in days?`,
      `${a} workers complete a task in ${b} days; how many days would it take one worker on their own?`,
    ],
  },
];

// The 14 fixed false-premise / invalid-inference items (§9.4 "Adversarial", i < 14): the original's topics and
// logic, our wording. The one-word golds are the logical answers; the explanatory golds are ours.
const ADVERSARIAL_FIXED: readonly (readonly [question: string, answer: string])[] = [
  ["True or false: '2 + 2 = 5, since the axioms of mathematics can simply be redefined.'", "false"],
  ["A friend insists that every AI model is 100% accurate. Is that right?", "false"],
  ["Which number is both larger than 10 and smaller than 5?", "impossible"],
  [
    "Someone goes 1 mile north, then 1 mile east, then 1 mile south. Could they end up at their starting point?",
    "yes, for instance if the walk begins at the North Pole",
  ],
  [
    "Every mammal is warm-blooded, and whales are fish. Are whales warm-blooded?",
    "the question rests on a false premise: whales are not fish but mammals",
  ],
  [
    "Every bird is able to fly, and penguins are birds. Are penguins able to fly?",
    "the first premise is false, since some birds cannot fly, so the conclusion is not established",
  ],
  [
    "Every square is a rectangle. Must every rectangle therefore be a square?",
    "no, that turns the relationship around; a rectangle need not be a square",
  ],
  [
    "Rain makes the ground wet, and the ground is wet. Does that prove it rained?",
    "not necessarily; something other than rain may have wet the ground",
  ],
  [
    "Can every even number be divided by 4 without a remainder?",
    "false; 6 is even, yet dividing it by 4 leaves a remainder",
  ],
  ["Is every prime number odd?", "false; 2 is prime and also even"],
  [
    "Every cat is a mammal and every mammal is an animal. So is every animal a cat?",
    "no; the premises only make cats a kind of animal, and reversing that is not valid",
  ],
  ["Do two odd numbers always add up to an odd number?", "false; adding two odd numbers always gives an even number"],
  [
    "Socrates is a philosopher, and every philosopher seeks wisdom. Does it follow that nobody but philosophers seeks wisdom?",
    "no; the premises say nothing about non-philosophers, so the converse does not follow",
  ],
  [
    "If all four sides of a shape have the same length, is the shape necessarily a square?",
    "not necessarily; a rhombus has four equal sides without having to be a square",
  ],
];

// The 10 fixed robustness probes, each with three paraphrases (§9.4 "Robustness", i < 10; [D] three, not two).
// Same facts and golds as the original, our wording; a paraphrase that spells its numbers out or uses a symbol
// (×, ÷, √) sits in the same slot as the original's, so each slot quotes the same digits.
const ROBUSTNESS_FIXED: readonly (readonly [question: string, answer: string, perturbations: readonly string[]])[] = [
  [
    "What do you get when you multiply 5 by 6?",
    "30",
    ["Give the product of 5 and 6.", "5 × 6 = ?", "What is six multiplied by five?"],
  ],
  [
    "Is Paris the French capital?",
    "yes",
    [
      "Does Paris serve as the capital of France?",
      "True or false: France's capital is Paris.",
      "Paris is the capital of France, right?",
    ],
  ],
  [
    "How many days does one week have?",
    "7",
    ["How many days make up a week?", "What is the number of days in a single week?", "A week is how many days long?"],
  ],
  [
    "At sea level, what temperature in degrees Celsius does water boil at?",
    "100",
    [
      "Water boils at how many degrees Celsius?",
      "What is water's boiling point on the Celsius scale?",
      "On the Celsius scale, at what temperature does water begin to boil?",
    ],
  ],
  [
    "What is the number of sides of a hexagon?",
    "6",
    [
      "How many sides make up a hexagon?",
      "A hexagon is a polygon with how many sides?",
      "Count how many sides a hexagon has.",
    ],
  ],
  [
    "What do you get when you divide 144 by 12?",
    "12",
    ["Give the result of dividing 144 by 12.", "What is one hundred forty-four divided by twelve?", "144 ÷ 12 = ?"],
  ],
  [
    "Is Earth the third planet out from the Sun?",
    "yes",
    [
      "Counting outward from the Sun, is Earth in third place?",
      "True or false: Earth is the third planet from the Sun.",
      "Is the Sun's third planet the Earth?",
    ],
  ],
  [
    "What is the number of continents on Earth?",
    "7",
    [
      "How many continents are there in the world?",
      "The Earth is divided into how many continents?",
      "Give the number of continents on our planet.",
    ],
  ],
  [
    "Which number is the square root of 81?",
    "9",
    ["Give the square root of 81.", "√81 = ?", "Which number multiplied by itself equals 81?"],
  ],
  [
    "Does a triangle have three sides?",
    "yes",
    [
      "Is a triangle a three-sided shape?",
      "True or false: every triangle has three sides.",
      "A shape with three sides: is that what a triangle is?",
    ],
  ],
];

function checkSize(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name}: must be a non-negative integer, got ${n}`);
  return n;
}

/**
 * The reasoning draws for items 0..n−1: a = randint(2,20), b = randint(1,10), speed = randint(50,200),
 * hours = randint(1,10), in that order, every item, from one `random.Random(seed)` (§9.4 step 1). Only the
 * reasoning split consumes the RNG, so these fix the whole dataset.
 */
export function syntheticReasoningDraws(seed: bigint | number, n: number): ReasoningDraw[] {
  return drawAll(new PyRandom(seed), checkSize("numReasoning", n));
}

function drawAll(rng: PyRandom, n: number): ReasoningDraw[] {
  return Array.from({ length: n }, (_, i) => {
    const a = rng.randint(2, 20);
    const b = rng.randint(1, 10);
    const speed = rng.randint(50, 200);
    const hours = rng.randint(1, 10);
    return { i, a, b, speed, hours };
  });
}

function adversarial(i: number): readonly [string, string] {
  if (i < ADVERSARIAL_FIXED.length) return ADVERSARIAL_FIXED[i];
  // A distinct false sum per index: the stated result is always off by 1 to 4.
  const a = 7 + i;
  const b = 3 + (i % 11);
  const wrong = a + b + 1 + (i % 4);
  return [
    `Someone argues that ${a} + ${b} = ${wrong}, since rephrasing a sum changes its result. Is this argument sound, both logically and arithmetically?`,
    "false",
  ];
}

function robustness(i: number): readonly [string, string, readonly string[]] {
  if (i < ROBUSTNESS_FIXED.length) return ROBUSTNESS_FIXED[i];
  const a = 11 + i;
  const b = 2 + (i % 9);
  return [
    `How much is ${a} multiplied by ${b}?`,
    String(a * b),
    [
      `Calculate ${a} times ${b}.`,
      `What is the product of ${a} and ${b}?`,
      `If you multiply ${a} by ${b}, what number results?`,
    ],
  ];
}

/**
 * Whether a synthetic item's gold is in our own words rather than the original's. The original's
 * adversarial golds that are sentences could not be copied (§9.4 [D]: its wording is not ours to ship),
 * so ours say the same in other words; figures and one-word golds ("false", "impossible") are the
 * original's own. Free-text golds are matched by containment, so CQ, CS, RS and ES on these items are
 * not comparable with the original's figures.
 */
export function goldInOurWords(item: { type?: string | null; answer: string }): boolean {
  return item.type === "adversarial" && /\s/.test(item.answer.trim());
}

/** What a run's result says about items whose gold is in our own words (see goldInOurWords). */
export const OWN_WORDING_NOTE =
  "these synthetic items have free-text golds in our own wording (the original's could not be copied); they are matched by containment, so CQ, CS, RS and ES on them are not comparable with the original's";

/**
 * Generates the synthetic dataset (§9.4): `reasoning_<i>`, then `adversarial_<i>`, then `robustness_<i>`.
 * Smaller sizes give a prefix of each split of the larger dataset with the same seed.
 * @throws RangeError on a negative or non-integer size.
 */
export function generateSynthetic(opts: SyntheticOptions = {}): SyntheticItem[] {
  const nR = checkSize("numReasoning", opts.numReasoning ?? SYNTHETIC_DEFAULT_SIZES.numReasoning);
  const nA = checkSize("numAdversarial", opts.numAdversarial ?? SYNTHETIC_DEFAULT_SIZES.numAdversarial);
  const nB = checkSize("numRobustness", opts.numRobustness ?? SYNTHETIC_DEFAULT_SIZES.numRobustness);
  const items: SyntheticItem[] = [];
  for (const { i, ...n } of drawAll(new PyRandom(opts.seed ?? 42), nR)) {
    const t = REASONING_TEMPLATES[i % REASONING_TEMPLATES.length];
    items.push({
      id: `reasoning_${i}`,
      question: t.question(n),
      answer: t.answer(n),
      type: "reasoning",
      perturbations: t.perturbations(n),
    });
  }
  for (let i = 0; i < nA; i++) {
    const [question, answer] = adversarial(i);
    const perturbations = normalizePerturbations(question, opts.adversarialPerturb?.(question));
    items.push({ id: `adversarial_${i}`, question, answer, type: "adversarial", perturbations });
  }
  for (let i = 0; i < nB; i++) {
    const [question, answer, perturbations] = robustness(i);
    items.push({ id: `robustness_${i}`, question, answer, type: "robustness", perturbations: [...perturbations] });
  }
  return items;
}
