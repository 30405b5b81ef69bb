/**
 * Listings as people write them: titles and descriptions in sentences over a vocabulary of 600
 * English words, with the frequencies of a language (a few words in nearly every listing, most in
 * few: each part of speech drawn by Zipf's law), words that start others (`test`, `tests`,
 * `testing`; `a`, `an`, `and`, `api`...), one-letter words and long ones. Keywords are drawn from
 * the same vocabulary, each word as likely as any other: some match nearly every listing, some a
 * handful, and a short one starts dozens of words. The same seed writes the same market.
 */

const FUNCTION_WORDS = `the a and to for of with your in i will my on is you this or an it be can from by as
  at any all that we our are have me us if not more per each up into also so then just only other get
  both than most very well about over after out within when what which how who same every until via
  no there one two three five ten few many much some new first last next`;

const VERBS = `build write review audit analyze summarize translate design create test deploy fix debug refactor
  optimize migrate document scrape clean label classify train tune evaluate benchmark monitor track
  forecast predict research compare draft edit proofread format convert extract generate render
  illustrate animate record transcribe index search match rank score sort filter merge split parse
  validate verify check scan secure integrate automate schedule manage plan report publish host
  maintain upgrade support answer handle process collect gather compile prepare deliver ship launch
  measure visualize chart map model simulate calculate estimate recommend explain teach coach help
  improve speed reduce increase find list read send sign deploying building writing testing designing
  reviewing auditing analyzing translating tested written built designed reviewed delivered`;

const NOUNS = `data dataset datasets database databases report reports analysis analytics analyst summary
  summaries article articles blog post posts essay story script scripts code app apps api apis website
  websites page pages site bot bots agent agents model models pipeline pipelines workflow workflows
  contract contracts token tokens wallet wallets chain solidity python rust typescript javascript
  react node postgres sql kubernetes docker cloud server servers backend frontend interface logo
  logos brand image images photo photos video videos audio podcast music voice translation
  translations language languages english spanish french german chinese japanese market markets
  competitor competitors customer customers user users product products feature features bug bugs
  issue issues test tests unit integration security vulnerability vulnerabilities performance speed
  latency query queries schema schemas table tables spreadsheet spreadsheets chart charts dashboard
  dashboards metric metrics kpi trend trends forecast forecasts price prices pricing cost costs budget
  invoice invoices email emails newsletter newsletters campaign campaigns ad ads seo keyword keywords
  content copy headline headlines slogan caption captions thread threads tweet tweets social
  community forum discord telegram slack bot notification notifications alert alerts log logs error
  errors crash crashes exception stack trace memory leak leaks cpu gpu cluster node nodes network
  request requests response responses endpoint endpoints webhook webhooks event events stream
  streams queue queues job jobs task tasks ticket tickets sprint roadmap plan plans proposal
  proposals pitch deck slides presentation document documents docs documentation guide guides tutorial
  tutorials course lesson lessons quiz exam homework paper papers thesis citation citations source
  sources reference references review reviews rating ratings feedback survey surveys interview
  interviews transcript transcripts meeting meetings note notes minutes recipe recipes menu travel
  trip itinerary hotel flight resume cv cover letter letters contract legal terms policy privacy
  compliance audit audits license patent trademark tax taxes accounting bookkeeping payroll finance
  portfolio stock stocks crypto bitcoin ethereum defi nft nfts protocol protocols exchange trading
  trade trades strategy strategies signal signals backtest backtests risk risks hedge yield
  lending liquidity pool pools swap swaps bridge oracle oracles governance vote dao treasury
  grant grants repo repos repository commit commits branch pull merge release releases version
  versions library libraries package packages dependency dependencies framework frameworks plugin
  plugins extension extensions widget widgets component components template templates theme themes
  layout layouts font fonts icon icons illustration illustrations animation animations banner
  banners poster posters flyer card cards label labels sticker merch shirt game games level levels
  character characters world map maps sound sounds song songs lyrics beat beats mix mastering
  subtitle subtitles caption dubbing voiceover narration prompt prompts embedding embeddings vector
  vectors classifier classifiers regression cluster clustering label labeling annotation annotations
  scraper scrapers crawler crawlers parser parsers spider extractor`;

const ADJECTIVES = `fast quick simple clean clear detailed thorough accurate reliable secure modern responsive small
  large full complete custom professional high quality low cheap affordable daily weekly monthly
  weekly short long deep careful friendly native fluent technical creative original unique minimal
  elegant robust scalable efficient automated manual private public open free premium basic advanced
  expert senior junior experienced reliable honest best better great good excellent perfect ready
  live real time same next urgent flexible safe typed tested verified documented`;

/** The words of each part of speech, most common first (duplicates across lists dropped). */
function parts(): Record<"fn" | "verb" | "noun" | "adj", string[]> {
  const seen = new Set<string>();
  const list = (text: string) => text.split(/\s+/).filter((word) => word !== "" && !seen.has(word) && seen.add(word));
  return { fn: list(FUNCTION_WORDS), verb: list(VERBS), noun: list(NOUNS), adj: list(ADJECTIVES) };
}

const PARTS = parts();
// Nouns are the long tail: as many as make 600 words in all.
PARTS.noun = PARTS.noun.slice(0, 600 - PARTS.fn.length - PARTS.verb.length - PARTS.adj.length);

/** Every word of the listings, 600 of them. */
export const LISTING_VOCABULARY: readonly string[] = [...PARTS.fn, ...PARTS.verb, ...PARTS.adj, ...PARTS.noun];
if (LISTING_VOCABULARY.length !== 600)
  throw new Error(`listing vocabulary: ${LISTING_VOCABULARY.length} words, not 600`);

/** Draws from `words` by Zipf's law: the k-th word (from 1) with weight 1/k^exponent. */
function zipf(words: readonly string[], exponent: number): (random: () => number) => string {
  const cumulative: number[] = [];
  let total = 0;
  for (let k = 1; k <= words.length; k++) {
    total += 1 / k ** exponent;
    cumulative.push(total);
  }
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return words[low] as string;
  };
}

// Function words as skewed as in English; content words less (no noun in most listings).
const draw = {
  fn: zipf(PARTS.fn, 1),
  verb: zipf(PARTS.verb, 0.7),
  noun: zipf(PARTS.noun, 0.7),
  adj: zipf(PARTS.adj, 0.7),
};

/** A sentence's shape: each letter a part of speech (f function word, v verb, n noun, a adjective). */
const SENTENCES = [
  "f f v f a n f n",
  "f v n f f a n",
  "a n f n f f n",
  "f f v n f n f f a n",
  "f n f v f a n f f n",
  "v f a n f n f v f n",
  "f f f v a n f f v n f n",
  "f n v f a n",
  "a n f a n f f n f v",
];
const TITLES = ["v n", "v a n", "a n f n", "v n f n", "v a n f a n", "n v", "a n v f n", "v f n n"];
const PART_OF = { f: draw.fn, v: draw.verb, n: draw.noun, a: draw.adj } as const;

function words(shape: string, random: () => number): string[] {
  return shape.split(" ").map((part) => PART_OF[part as keyof typeof PART_OF](random));
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A listing's title (2 to 6 words) and description (2 to 8 sentences, ~100-600 characters). */
export function listingText(random: () => number): { title: string; description: string } {
  const title = words(TITLES[Math.floor(random() * TITLES.length)] as string, random)
    .map(capitalized)
    .join(" ");
  const sentences = 2 + Math.floor(random() * 7);
  const description = Array.from({ length: sentences }, () => {
    const sentence = words(SENTENCES[Math.floor(random() * SENTENCES.length)] as string, random);
    return `${capitalized(sentence.join(" "))}.`;
  }).join(" ");
  return { title, description };
}

/** A browse keyword: a word of the vocabulary, each as likely, or (15 %) two of them. */
export function listingKeyword(random: () => number): string {
  const word = () => LISTING_VOCABULARY[Math.floor(random() * LISTING_VOCABULARY.length)] as string;
  return random() < 0.15 ? `${word()} ${word()}` : word();
}
