// Sentences from addresses the model never saw in training (its held-out split, train-log.json):
// the model view's examples, and the small held-out sample its interventions measure.
export const SENTENCES = [
  ['1869, Ulysses S. Grant', 'We are blessed with peace at home, and are without entangling alliances abroad to forebode trouble.'],
  ['1919, Woodrow Wilson', 'I sincerely regret that I cannot be present at the opening of this session of the Congress.'],
  ['1939, Franklin D. Roosevelt', 'A war which threatened to envelop the world in flames has been averted; but it has become increasingly clear that world peace is not assured.'],
  ['1999, William J. Clinton', 'Tonight I have the honor of reporting to you on the State of the Union.'],
  ['1809, James Madison', 'It is with deep concern I am now to inform you that the favorable prospect has been over-clouded by a refusal of the British Government.'],
];
