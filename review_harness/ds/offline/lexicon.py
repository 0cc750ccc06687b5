"""Vocabularies of the offline reviewer: compiled patterns the rules share.

Each pattern names one concept a checklist item needs (causal language, a comparison design,
uncertainty, a recommendation, ...). Rules combine them; nothing here knows about a fixture.
"""

from __future__ import annotations

import re

from review_harness.core.text import NEGATION

I = re.IGNORECASE


def rx(pattern: str, flags: int = I) -> re.Pattern[str]:
    return re.compile(pattern, flags)


# ------------------------------------------------------------------ numbers

# A number as written: optional sign/currency, digits with separators, optional unit.
NUMBER = rx(
    r"(?<![\w.])(?P<sign>[-−+])?(?:(?P<cur>[$€£])\s?)?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?P<unit>\s?(?:\\?%|pp\b|p\.p\.|ppts?\b|bps?\b|x\b|×|[kK]\b|[mM]\b|MM\b|bn\b|B\b|million\b|billion\b|thousand\b))?",
    0,
)
PERCENTLIKE = rx(r"\d(?:\.\d+)?\s?(?:\\?%|pp\b|p\.p\.|ppts?\b|percentage points?|percent\b|bps\b)|\d(?:\.\d+)?x\b")
MONEY = rx(r"[$€£]\s?\d|\d\s?(?:USD|EUR|GBP)\b|\b\d+(?:\.\d+)?\s?(?:million|billion|[kKmM])\s?(?:in )?(?:revenue|dollars|euros|savings)")
YEAR = rx(r"^(?:19|20)\d\d$")

# ------------------------------------------------------------------ method / design

CAUSAL_STRONG = rx(
    r"\b(caused|causes|causing|drove|drives|driven by|driving|led to|leads to|lead to|leading to|"
    r"resulted in|results in|resulting in|attributable to|attributed to|thanks to|"
    r"(?:is|was|were|are) responsible for|because of|(?<![-\w])boosted|was behind|is behind|"
    r"contributed to|made (?:users|customers|people) (?:\w+ )?(?:more|less))\b"
)
CAUSAL_DUE = rx(
    r"\b(lift|uplift|increase|decrease|drop|rise|growth|decline|improvement|gain|reduction|jump|spike|"
    r"dip|fall|change|boost)\w*\b[^.;]{0,40}?\b(due to|from the|because of|as a result of|following)\b"
)
CAUSAL_IMPACT = rx(r"\b(the )?(impact|effect)s? of (the |our |this )?[\w\- ]{2,40}?\b(was|is|were|on)\b")
HEDGE = rx(
    r"\b(not|cannot|can't|can not|whether|unclear|no evidence|don't know|do not know|doesn't|does not|"
    r"did not|didn't|may|might|could|possibly|perhaps|if|would|hypothes\w+|speculat\w+|we suspect|"
    r"it is possible|to test|to measure|to estimate|to determine|to understand|question)\b"
)
CHANGE_WORD = rx(
    r"\b(increas\w*|decreas\w*|lift\w*|uplift|grow\w*|grew|improv\w*|drop\w*|reduc\w*|ris(?:e|es|en|ing)|rose|fell|"
    r"fall\w*|declin\w*|boost\w*|jump\w*|gain\w*|higher|lower|more|fewer|less)\b"
)
DESIGN = rx(
    r"\b(randomi[sz]ed|randomly (?:assigned|allocated|split)|random (?:assignment|allocation)|a/b(?:/n)?(?: test\w*)?|"
    r"ab test\w*|split[- ]test\w*|control group|control arm|control cohort|control condition|vs\.? control|"
    r"versus control|(?:the|a) control\b|treatment (?:group|arm)|hold[- ]?out|"
    r"difference[- ]in[- ]differences?|diff[- ]in[- ]diff|synthetic control|regression adjustment|"
    r"adjust(?:ed|ing) for|control(?:led|ling) for|propensity|matched (?:cohort|sample|control|pairs?|users|stores)|"
    r"matching|instrumental variables?|regression discontinuity|interrupted time series|counterfactual|"
    r"placebo|natural experiment|(?:online |controlled |randomi[sz]ed )?experiment(?:s|ation)?\b|causalimpact|"
    r"causal impact model|bsts|"
    # arms of a test: "a two-arm test", "both arms", units split or assigned between arms ("split by user id, 50/50")
    r"(?:two|three|four|\d)[- ]arm(?:ed)?\b|(?:test|treatment|control|both|each|the two) arms?\b|"
    r"(?:split|assigned|allocated|bucketed)\b[^.;]{0,40}?\b(?:50\s*/\s*50|\d{1,2}\s*/\s*\d{1,2})(?!\s*/))"
)
DESIGN_NEGATED = rx(
    r"\b(no|not|without|never|didn't|did not|lack\w*|absence of|wasn't|was not|weren't|couldn't|could not|unable to)\b"
    r"[^.;]{0,40}$"
)
DID_SHORT = re.compile(r"\bDiD\b")
BEFORE_AFTER = rx(
    r"\b(before and after|before/after|before vs\.? after|pre[- ]period|post[- ]period|pre[- ](?:launch|change|rollout)|"
    r"post[- ](?:launch|change|rollout)|since (?:the |we )?(?:launch\w*|releas\w*|change\w*|roll(?:ed)?[- ]?out|redesign\w*|introduc\w*|ship\w*)|"
    r"after (?:the |we )?(?:launch\w*|releas\w*|change\w*|roll(?:ed)?[- ]?out|redesign\w*|introduc\w*|ship\w*)|"
    r"compared (?:to|with) (?:the )?(?:previous|prior|last|same) (?:month|quarter|year|week|period)|"
    r"month[- ]over[- ]month|year[- ]over[- ]year|week[- ]over[- ]week|quarter[- ]over[- ]quarter|MoM|YoY|WoW|QoQ)\b"
)
# groups formed by how much of a thing people got through their own behaviour ("users shown the ads multiple
# times", "customers who saw 4+ emails"): the amount follows from what they did, so the groups select themselves
_DOSE = (r"(?:users|customers|accounts|members|people|shoppers|subscribers|buyers|visitors|viewers|players|readers) "
         r"(?:who (?:saw|see|were shown|received|got|heard)|shown|exposed to|seeing|receiving|reached by)\b[^.,;]{0,40}?"
         r"\b(?:\d+\+? times|\d+ or more times|multiple times|several times|many times|more (?:often|times)|repeatedly|"
         r"frequently|most often)")
SELECTION = rx(
    rf"\b({_DOSE}|"
    r"(?:users|customers|accounts|members|people|shoppers|subscribers|buyers|stores|teams|workspaces|[a-z]{3,}ers) (?:who|that) "
    r"(?:open(?:ed)?|click(?:ed)?|read|watch(?:ed)?|attend(?:ed)?|b(?:uy|ought)|purchas(?:e|ed)|view(?:ed)?|visit(?:ed)?|log(?:ged)?|"
    r"cho(?:se|ose)|opt(?:ed)?|sign(?:ed)? up|enabl(?:e|ed)|adopt(?:ed)?|us(?:e|ed)|engag(?:e|ed)|respond(?:ed)?|complet(?:e|ed)|"
    r"answer(?:ed)?|upgrad(?:e|ed)|join(?:ed)?|turn(?:ed)? on|activat(?:e|ed)|tri(?:ed)|redeem(?:ed)?)|"
    r"those who (?:did|didn't|did not|opened|clicked|used|adopted|engaged|responded)|survey respondents|respondents|"
    r"self[- ]selected|opt(?:ed)?[- ]in|volunteer\w*|early adopters|power users|beta (?:users|testers|group|cohort)|"
    r"hand[- ]?picked|pilot (?:stores|customers|group|users|markets))\b"
)
# the same, in the past tense only: how a causal claim about people who chose the thing is told
SELECTION_PAST = rx(
    rf"\b({_DOSE}|"
    r"(?:users|customers|accounts|members|people|shoppers|subscribers|buyers|stores|teams|workspaces|[a-z]{3,}ers) (?:who|that) "
    r"(?:opened|clicked|read|watched|attended|bought|purchased|viewed|visited|logged|chose|opted|signed up|enabled|"
    r"adopted|used|engaged|responded|completed|answered|upgraded|joined|turned on|activated|tried)|"
    r"those who (?:did|didn't|did not|opened|clicked|used|adopted|engaged|responded)|survey respondents|respondents|"
    r"self[- ]selected|opt(?:ed)?[- ]in|volunteer\w*|early adopters|power users|beta (?:users|testers|group|cohort)|"
    r"hand[- ]?picked|pilot (?:stores|customers|group|users|markets))\b"
)
BIAS_ADDRESSED = rx(
    # the selection named as such: "bias" alone may be about something else ("no bias towards a specific offer")
    r"\b(selection bias|self[- ]selection|self[- ]selected|selection effect|biased (?:sample|comparison|towards? (?:more|heavier|engaged))|"
    r"representative|reweight\w*|re-weight\w*|weighted to|propensity|matched|matching|randomi[sz]\w*|comparable|confound\w*|"
    r"survivor(?:ship)? bias|not (?:a )?causal|(?:are|is) (?:only )?(?:an? )?associations?|associational|who (?:chose|choose|opt)|"
    r"(?:they|people|customers|users) (?:chose|choose|opt)|reverse caus\w*|(?:more|less) (?:engaged|motivated|committed) to begin with)\b"
)
PROJECTION = rx(
    r"\b(project(?:ed|ion|ions)(?! (?:team|manager|plan|lead))|(?-i:f)orecast(?:ed|s)? (?:to|that|of|at|is|shows?)|annuali[sz]\w*|extrapolat\w*|run[- ]rate|"
    r"if (?:this|the trend|these trends?|the (?:lift|effect|uplift|increase)) (?:continues?|holds?|persists?)|"
    r"will (?:save|generate|add|bring|deliver|increase|grow|reduce|yield|produce) (?:us |an? |roughly |about |around )?(?:additional |extra )?[$€£\d]|"
    r"(?:expected|estimated|set|on track) to (?:generate|save|add|increase|grow|reduce|deliver|yield|bring)|"
    r"over the next (?:year|\d+ (?:months|quarters|years))|per year|a year|annually|next (?:year|quarter)|"
    r"annual (?:\w+ )?(?:upside|impact|revenue|savings|value|benefit|gain)|upside|at (?:full|global|company-wide) (?:rollout|scale)|"
    r"(?:should|would|could) (?:add|save|generate|bring|deliver|yield) (?:us )?(?:about |roughly |around |an? |another )?(?:additional |extra )?[$€£\d~])"
)
ASSUMPTION = rx(
    r"\b(assum\w+|premise|taken as given|held constant|holding .{0,20} constant|sensitivity|scenario\w*|"
    r"conservative|optimistic|pessimistic|best case|worst case|range of|if .{0,60} (?:holds?|continues?|persists?))"
)
MODEL_NAME = rx(
    r"\b(random forest|xgboost|lightgbm|gradient[- ]boost\w*|neural net\w*|lstm|deep learning|logistic regression|"
    r"linear regression|k-means|clustering|prophet|arima|bayesian (?:model|structural time[- ]series)|mixed[- ]effects? model|"
    r"survival (?:model|analysis)|cox (?:model|regression)|propensity score \w+|causalimpact|uplift model\w*)\b"
)
JUSTIFY = rx(
    r"\b(because|chose|chosen|choose|rather than|instead of|over (?:a|an|the) (?:simpler|alternative)|"
    r"compared (?:against|with|to) (?:a |the )?(?:baseline|simpler|alternative|naive)|why|suited|appropriate|"
    r"allows? us|so that|since (?:it|the|we)|handles?|outperform\w*|benchmark\w*)\b"
)
METHOD_SIGNAL = rx(
    r"\b(we used|we use|using (?:a|an|the|data|our)|approach|method\w*|we (?:ran|compared|analy[sz]ed|measured|modell?ed|"
    r"computed|calculated|pulled|queried|sampled|segmented|fit|fitted|built|trained|estimated|tracked|surveyed|"
    r"collected|defined|split)|sample size|sample of|population|cohorts?|treatment|control group|regression|"
    r"dataset|data (?:from|source\w*|covers|set)|query|survey(?:ed)?|randomi[sz]ed|experiment\w*|a/b|"
    r"time window|observation window|period from|between \w+ \d{1,2} and|from \w+ \d{1,2} to|measured (?:on|as|by|with|at|from)|"
    r"source:|sample\b|versus|broken down by|drawn from|we split|split into|pre-registered|power calculation|"
    r"in the (?:\w+ )?(?:days|weeks|months) (?:before|after)|the same (?:days|weeks|months|period) of)\b"
)

# ------------------------------------------------------------------ results / logic

NONSIG = rx(
    r"\b(not (?:statistically )?significant|wasn't (?:statistically )?significant|non[- ]?significant|insignificant|"
    r"no (?:statistically )?significant|did not reach (?:statistical )?significance|didn't reach (?:statistical )?significance|"
    r"not reach (?:statistical )?significance|fail(?:ed|s)? to reach (?:statistical )?significance|inconclusive|"
    r"no (?:measurable|detectable|meaningful|clear|real|discernible) (?:effect|difference|change|impact|lift|improvement)|"
    r"within (?:the )?(?:noise|margin of error)|indistinguishable from (?:zero|control|noise)|"
    r"(?:cannot|can't|could not|couldn't) (?:rule out|distinguish .{0,20} from) (?:zero|no effect|noise)|"
    r"consistent with (?:no|zero) (?:effect|change|difference))\b"
)
PVALUE = rx(r"\bp(?:\s*-?\s*value)?\s*(?P<op>=|<|>|≤|≥|<=|>=|of|was|is|:)\s*(?P<val>0?\.\d+|1(?:\.0+)?)\b")
_CI_NUM = r"[-−+]?\s?[$€£]?\d+(?:\.\d+)?"
_CI_UNIT = r"(?:\s?(?:%|pp\b|p\.p\.|ppts?\b|points?\b|bps\b|x\b))?"
CI = rx(
    r"(?:\bCI\b|confidence interval|credible interval|\binterval\b|\brange\b)[^0-9−\-+\n.;]{0,40}?"
    rf"(?P<lo>{_CI_NUM}){_CI_UNIT}\s*(?:to|,\s|,(?=[-−+])|–|—|and|\.\.|;|\s-\s)\s*(?P<hi>{_CI_NUM}){_CI_UNIT}(?![\d,]*\d)"
)
BRACKET_INTERVAL = rx(rf"[\[(]\s*(?P<lo>{_CI_NUM}){_CI_UNIT}\s*(?:,\s*|\s*to\s*|–|—)\s*(?P<hi>{_CI_NUM}){_CI_UNIT}\s*[\])]")
POS_SIG = rx(
    r"\b(statistically significant|significant at|highly significant|significant (?:positive|increase|lift|improvement|uplift|gain|effect|reduction))\b"
)
POS_METRIC = rx(
    r"\b(conversions?|revenue|retention|engagement|sales|sign[- ]?ups?|ctr|click[- ]through|clicks|orders|bookings|"
    r"purchases|nps|satisfaction|csat|activation|adoption|usage|active users|dau|mau|wau|arpu|aov|gmv|ltv|margin|"
    r"profit|renewals?|upgrades?|subscriptions?|transactions|traffic|visits|installs)\b"
)
NEG_METRIC = rx(
    r"\b(churn\w*|costs?|latency|errors?|bounce\w*|complaints?|defects?|cancell?ations?|refunds?|tickets?|"
    r"abandonment|fraud|load time|cac|attrition|returns|time to \w+|wait time|drop[- ]?off)\b"
)
DECLINE = rx(r"\b(fell|fall(?:s|ing)?|decreas\w*|declin\w*|dropped|drops?|dipped|went down|worse(?:ned)?|negative|lower|down by|shrank|contracted)\b")
RISE = rx(r"\b(rose|ris(?:e|es|ing)|increas\w*|grew|grow\w*|went up|higher|up by|jumped|spiked)\b")
POS_CLAIM = rx(
    r"\b(improv(?:ed|es|ing|ement|ements)|increas(?:ed|es|ing)|boost(?:ed|s)?|lift(?:ed|s)?|uplift|success(?:ful|fully)?|"
    r"worked|a (?:clear |big |real )?win|positive (?:impact|effect|result|outcome)|significant(?:ly)? (?:\w+ )?(?:improv\w*|increas\w*|lift\w*|gain\w*|uplift|impact|effect|better|higher)|"
    r"statistically significant|outperform(?:ed|s)?|grew|growth|delivered|effective)\b"
)
ROLLOUT = rx(
    r"\b(roll(?:ing|ed)?[- ]?(?:it |this |the \w+ )?out|launch(?:ing)? (?:it|this|the \w+|to)|ship(?:ping)? (?:it|this|the \w+|to)|"
    r"expand(?:ing)? (?:it |this |the \w+ )?(?:to|across)|scal(?:e|ing) (?:it|this|up)|deploy(?:ing)? (?:it|this|to)|"
    r"make (?:it|this) (?:the )?default|(?:to|for) (?:all|100%(?: of)?) (?:users|customers|traffic|markets|stores)|go(?:ing)? live)\b"
)
#: negation words analyses add to the core's ("the data argue against rolling out")
DS_NEGATION = ("against",)
# a negation close before a claim: "we do not recommend", "rather than ship"
NEGATION_NEAR = rx(rf"{NEGATION.pattern}|\b(?:{'|'.join(DS_NEGATION)})\b")
OVERCLAIM = rx(
    r"\b(proves?|proven|definitively|conclusively|undeniabl[ey]|without (?:a )?doubt|beyond (?:any )?doubt|"
    r"guarantee[sd]?|unquestionabl[ey]|no doubt|it is obvious|obviously|strong evidence that|clear evidence that|"
    r"(?:users|customers|everyone|people|shoppers|members|buyers|teams) (?:clearly )?(?:love|hate|prefer|want)s?\b|"
    r"clearly (?:prefer|love|want|show|shows|demonstrate|demonstrates|prove|proves|is|are|works?)|"
    r"(?:is|are|was|were) clearly (?:from|due to|caused by|driven by|the (?:result|work) of|because)\b)"
)
CONCLUSION_SIGNAL = rx(
    r"\b(in conclusion|to conclude|we conclude|we recommend|our recommendation|recommendation is|key (?:finding|takeaway|result)s?|"
    r"(?:the )?bottom line|takeaway|in summary|to summari[sz]e|in short|overall,|the answer is|the short answer|"
    r"the results? (?:show|suggest|indicate)s?|this (?:means|shows|suggests|indicates)|therefore|based on (?:this|these|the) (?:analysis|results|findings)|"
    r"we found that|our analysis shows|the data shows?)\b"
)
QUESTION_SIGNAL = rx(
    r"\b(the (?:key |main |central |business )?question (?:is|was|we|here)|we (?:wanted|set out|were asked|aim(?:ed)?) to "
    r"(?:know|understand|answer|determine|find out|measure|assess|estimate|learn)|(?:the )?(?:goal|objective|aim|purpose) "
    r"(?:of this (?:analysis|work|study|doc\w*) )?(?:is|was) to|asked (?:us |me )?(?:whether|if|to)|question:|"
    r"(?:this|the) (?:analysis|doc\w*|memo|report) (?:answers|asks|addresses|investigates|examines))"
)
DEFERRAL = rx(
    r"\b(further (?:analysis|investigation|work|research) (?:is |will be )?(?:needed|required)|more (?:analysis|work|data) (?:is )?(?:needed|required)|"
    r"remains? (?:unclear|open|to be seen|unanswered|unknown)|(?:we|i) (?:were|was|are|am) (?:not yet |un)able to (?:determine|answer|conclude|tell|say)|"
    r"too early to (?:say|tell|conclude)|will (?:update|follow up|report back|revisit)|to be determined|not yet (?:clear|known|determined|available|finished)|"
    r"(?:ran|run) out of time|couldn't get to|did not get to|haven't (?:yet )?(?:finished|analy[sz]ed|looked|had time)|"
    r"still (?:working on|in progress|pending|being analy[sz]ed)|coming soon|analysis (?:is )?ongoing|(?:results|analysis) pending)\b"
)

# ------------------------------------------------------------------ metrics

UNCERTAINTY = rx(
    r"(\bCI\b|confidence interval|credible interval|\bintervals?\b|\bp\s*(?:-?\s*value)?\s*(?:=|<|>|≤|≥)|\bp-?values?\b|"
    r"standard errors?|\bs\.?e\.?\s*=|std\.? err|±|\+/-|margin of error|statistically (?:significant|insignificant)|"
    r"significance|bootstrap\w*|t-test|chi[- ]squared?|z-test|"
    r"standard deviation|\bSD\b|error bars?|power analysis|\bMDE\b|minimum detectable|posterior|credible)"
)
SAMPLE_SIZE = rx(
    r"\bn\s*=\s*\d|\b(?:\d{1,3}(?:,\d{3})+|\d{4,}(?:\.\d+)?\s?k?)\s?(?:\w+ )?(?:users|customers|sessions|visitors|accounts|respondents|"
    r"participants|observations|orders|members|households|stores|samples|transactions|people|subscribers|devices)"
)
COMPARISON = rx(
    r"\b(vs\.?|versus|compared|comparison|relative to|than|baseline|benchmark\w*|control|prior|previous|last (?:year|month|quarter|week)|"
    r"same (?:period|month|quarter|week)|year[- ]over[- ]year|month[- ]over[- ]month|week[- ]over[- ]week|yoy|mom|wow|qoq|"
    r"up|down|increas\w*|decreas\w*|rose|fell|grew|declin\w*|dropped|drop|lift\w*|uplift|change[ds]?|delta|target|goal|"
    r"industry average|average of|higher|lower|improv\w*|reduc\w*|gain\w*|from [^.;]{0,30}? to|growth|jump\w*|"
    r"above|below|flat|unchanged|steady|same as|in line with|doubl\w*|tripl\w*|halv\w*|against|without it|with and without|→|->)\b"
)
METRIC_NOUN = rx(
    r"\b(rates?|conversion|revenue|churn|retention|nps|scores?|adoption|engagement|usage|sales|orders|ctr|click[- ]through|"
    r"arpu|aov|gmv|ltv|cac|margin|customers|sessions|sign[- ]?ups?|satisfaction|csat|accuracy|precision|recall|auc|"
    r"latency|share|penetration|dau|mau|wau|visits|bookings|spend|roi|value|basket|tickets|cost|profit|income|"
    r"completion|activation|users)\b"
)
SIG_CLAIM = rx(
    r"\b(statistically significant|highly significant|significant(?:ly)? (?:\w+ )?(?:improv\w*|increas\w*|higher|lower|better|lift\w*|"
    r"effect|difference|impact|uplift|gain\w*|reduc\w*|positive)|p\s*[<≤]\s*0?\.0\d+)"
)
PRACTICAL = rx(
    r"\b(practical\w*|business (?:impact|value|significance|terms)|meaningful\w*|material\w*|effect size|cohen|minimum detectable|"
    r"\bmde\b|worth|per (?:user|customer|year|month|week|order|store|account|visitor)|annual\w*|revenue impact|absolute|"
    r"percentage points?|\bpp\b|translat\w+ (?:to|into)|equivalent to|additional|extra|incremental|per \d|"
    r"in (?:dollar|revenue|euro) terms)\b|[$€£]\s?\d"
)
CUSTOM_METRIC = rx(
    r"\b((?:[a-z][a-z\-]+ ){0,2}[a-z][a-z\-]+ (?:score|index|rate|ratio|metric))\b"
)
STANDARD_METRICS = (
    "conversion rate", "churn rate", "retention rate", "click-through rate", "click through rate", "bounce rate",
    "error rate", "growth rate", "open rate", "response rate", "win rate", "attrition rate", "unemployment rate",
    "interest rate", "exchange rate", "hit rate", "fill rate", "failure rate", "success rate", "completion rate",
    "net promoter score", "credit score", "z score", "f1 score", "cancellation rate", "refund rate", "return rate",
    "defect rate", "abandonment rate", "renewal rate", "adoption rate", "default rate", "false positive rate",
    "false negative rate", "true positive rate", "precision rate", "the rate", "run rate", "learning rate",
    "sampling rate", "tax rate", "hourly rate", "base rate", "birth rate", "death rate", "mortality rate",
    "sign-up rate", "signup rate", "purchase rate", "repeat rate", "dropout rate", "drop-off rate", "odds ratio",
    "hazard ratio", "rate ratio", "risk ratio", "ratio", "metric", "this metric", "primary metric",
    "secondary metric", "guardrail metric", "north star metric", "success metric", "key metric",
)
DEFINITION_CUE = rx(
    r"\b(defined as|we define|definition|define[sd]?|is calculated|calculated as|computed as|measured as|measures? (?:the|how|whether|what)|"
    r"refers to|is the (?:share|number|fraction|percentage|proportion|ratio|count|sum|average|mean|median)|means|i\.e\.|"
    r"counts? (?:the|how)|is (?:the )?(?:share|number|fraction|percentage|proportion) of)\b"
)

# ------------------------------------------------------------------ communication

TLDR_PURPOSE = rx(
    r"^\W*(?:tl;?dr:?\s*|summary:?\s*)?(this (?:document|doc|analysis|report|page|memo|write-?up|deck|study|note|post|notebook|article|"
    r"project|repository|repo) "
    r"(?:describes|covers|looks at|explores|examines|presents|summari[sz]es|outlines|investigates|reviews|discusses|is about|"
    r"contains|will|collects|gathers|lists|compiles|tracks|reports on|provides|documents|captures|shares|walks through|"
    r"forecasts|estimates|predicts|compares|measures|models|analy[sz]es|uses|builds)|"
    r"in this (?:analysis|document|doc|report|memo|write-?up|post|notebook|project|article)|"
    r"an? (?:[\w-]+ ){0,3}(?:project|analysis|study|notebook|report) (?:to|that|which|for) (?:forecast|predict|estimate|measure|"
    r"understand|explore|analy[sz]e|compare|model|build)\w*|the (?:purpose|goal|aim|objective) of this|"
    r"we (?:look|looked|explore|explored|analy[sz]e|analy[sz]ed|investigate|investigated|examine|examined|review|reviewed|dig|dug) (?:at |into )?)"
)
FINDING_VERB = rx(
    r"\b(conclud(?:es|ed) that|increas\w*|decreas\w*|reduc\w*|improv\w*|grew|grow\w*|fell|rose|dropped|lift\w*|drove|caused|found|finds|"
    r"shows?|showed|recommend\w*|should|did not|does not|no (?:effect|change|difference|impact|lift)|yes|outperform\w*|"
    r"underperform\w*|saves?|saved|costs?|worth|beat|missed|exceed\w*|doubl\w*|halv\w*|declin\w*|"
    r"(?:is|was|are|were) (?:not )?(?:significant|effective|profitable|driven))\b"
)
# an answer stated as a comparison: "ETS is as accurate as the neural network", "clearly worse than both"
COMPARATIVE_ANSWER = rx(
    r"\b(as \w+ as|(?:more|less|better|worse|faster|slower|cheaper|higher|lower|fewer|larger|smaller) (?:\w+ )?than|"
    r"outperform\w*|beat|no (?:significant |meaningful |measurable )?(?:difference|effect|change|lift)|did not|failed to)\b")
IMPACT = rx(
    r"([$€£]\s?\d|\b\d+(?:\.\d+)?\s?(?:%|pp|x)\b|\b(revenue|profit|cost|savings?|customers|users|churn|retention|conversion|"
    r"margin|growth|impact|risk|decision)\b)"
)
DIRECT_ANSWER = rx(
    r"\b(yes|no|the answer is|short answer|did not|didn't|does not|doesn't|is not|isn't|was not|wasn't|"
    r"did|does|is|was)\b[^.]{0,80}\d|\b(yes|no)\b[,.:]|\bthe answer\b|\bshort answer\b"
)
GENERIC_HEADING = rx(
    r"^(?:(?:section|part|chapter|appendix|step|slide|page)\s*[\w\d]{0,3}|results?|analysis|analyses|findings?|data|datasets?|"
    r"method(?:s|ology)?|approach|background|introduction|intro|overview|discussion|conclusions?|details?|other|"
    r"misc(?:ellaneous)?|notes?|context|metrics|outcomes?|observations?|output|numbers|tables?|charts?|figures?|"
    r"graphs?|more|information|info|stuff|additional (?:analysis|info\w*|details)|further analysis|deep dive|"
    r"data (?:and|&) methods?|methods? (?:and|&) data|results? (?:and|&) discussion|analysis (?:and|&) results?|"
    r"key (?:results|findings|metrics)|update|status|[ivx]+|\d+(?:\.\d+)*)$"
)
NON_CONTENT_HEADING = rx(
    r"^(tl;?dr|summary|executive summary|key takeaways?|at a glance|bottom line|appendix.*|references?|"
    r"sources?|glossary|acknowledge?ments?|next steps?|recommendations?|limitations?|caveats?|"
    r"limitations? (?:and|&) \w+|risks?|assumptions?|definitions?|open questions?|faq|contents|table of contents)$"
)
SECTION_NUMBERED_HEADING = rx(r"^(?:section|part|chapter|slide|page)\s*[\w\d]{1,3}\b[.:]?\s*$|^\d+(?:\.\d+)*\.?$")
LIMITATION = rx(
    r"\b(limitations?|caveats?|does not account|doesn't account|did not account|didn't account|do not account|"
    r"out of scope|should be noted|worth noting|confound\w*|selection bias|cannot rule out|can't rule out|"
    r"could not rule out|not representative|generali[sz]\w*|threats? to validity|"
    r"we did not (?:control|account|test|measure|adjust|include|look|observe|capture)|does not (?:capture|include|cover|tell us|prove|show)|"
    r"do not (?:capture|include|cover|know)|only (?:covers|includes|applies|looked at|measures?|reflects?|captures?)|"
    r"risks? (?:to|of|include)|key risks?|known issues?|weakness\w*|blind spots?|we can(?:not|'t) (?:say|tell|conclude|rule)|"
    r"interpret\w* with care|with caution|be careful|not causal|correlational|short[- ]term only|novelty effect|seasonality|"
    r"limits to what|(?:cannot|can't|does not|doesn't) tell us|says nothing about|may not (?:carry over|generali[sz]e|hold|apply)|"
    r"(?:we )?(?:have|has) not (?:been )?tested|not (?:precise|large) enough|self[- ]selected|small sample|cannot rule out)\b"
)
BOUNDARY = rx(
    r"\b(cannot|can't|can not|does not (?:tell|show|support|prove|generali[sz]e|apply|mean)|do not (?:know|extrapolate|generali[sz]e|use|read)|"
    r"should not be (?:used|interpreted|read|generali[sz]ed|extrapolated|applied)|not (?:generali[sz]e|be generali[sz]ed|apply|causal|representative)|"
    r"only (?:applies|holds|valid|covers|tested|measured)|limited to|out of scope|scope|caution|caveat\w*|limitation\w*|bounded|"
    r"we don't know|unknown|don't extrapolate|may not (?:hold|apply|generali[sz]e|transfer|carry over)|"
    r"might not (?:hold|apply|generali[sz]e|carry over)|only (?:covered|included|ran|measured|tested|looked at)|"
    r"(?:is|are) specific to|(?:only|just) (?:in|for) (?:the )?\w+)\b"
)
#: what a result can be extended to: the population a rollout or a claim covers
SCOPE_UNITS = (r"(?:users?|customers?|members?|accounts?|markets?|regions?|countries|locales|languages|metros?|cities|"
               r"sites?|stores?|categories|segments?|platforms?|products?|teams?|states|geographies|shards?)")
#: a result applied to all of a population, or to more of it than was measured ("all 12 metros and every
#: category", "approve global rollout", "extend it to the remaining markets")
SCOPE_EXTENSION = rx(
    r"\b((?:all|every)(?: (?:of )?(?:the|our))? (?:\d+ )?(?:other )?" + SCOPE_UNITS + r"|"
    r"(?:global|worldwide|nationwide|company[- ]wide|network[- ]wide) (?:rollout|roll-out|launch|release|expansion)|"
    r"to (?:other|new|more|the remaining|the rest of the) " + SCOPE_UNITS + r")\b"
)
#: the data were drawn at random from the population the result is applied to, so applying it there
#: extends nothing ("we drew 5,000 queries at random from production traffic")
SAMPLED_FROM_POPULATION = rx(
    r"\b(?:(?:drew|drawn|sampled|selected|picked|chosen)\b[^.;]{0,60}?\bat random from|"
    r"random(?:ly)? (?:sampled|drawn|selected|chosen) from|random sample (?:of|from) (?:all|every|the whole|the entire|production|live))\b"
)
GENERALIZE = rx(
    r"\b(all (?:users|customers|markets|regions|countries|segments|platforms|products|stores|teams)|"
    r"every (?:user|customer|market|region|segment|store|country)|across the board|globally|company[- ]wide|"
    r"any (?:market|region|segment|country)|universal(?:ly)?|in all cases|always (?:work|increase|improve|drive)\w*|"
    r"will (?:increase|grow|reduce|save|generate|deliver|drive|double|triple|boost|lift|improve)|guarantee\w*|"
    r"extrapolat\w*|scale (?:this|it) to|roll(?:ing)? (?:it |this )?out (?:to|across) (?:all|every|the (?:whole|entire|rest))|"
    r"the same (?:result|effect|lift) (?:will|would) (?:hold|apply))\b"
)
RECOMMENDATION = rx(
    r"\b(recommend\w*|should(?! be noted)|next steps?|propos(?:e|ed|al|ing)|we suggest|i suggest|suggest(?:ed)? (?:that we|we|to)|"
    r"action items?|decision|decide|we will|we'll|we plan|plan to|(?:the|our) ask|we ask|asking (?:for|that)|"
    r"go/no-go|must|need to|needs to|let's|our proposal|can (?:keep|stop|proceed|go ahead|ship|roll out|continue)|"
    r"(?:we|you|the team) (?:could|might|may want to|may wish to) (?:consider|look into|explore|try|test|revisit))\b"
    r"|\b(?:owner|action):"
)
OWNER = re.compile(
    r"(\b[Oo]wner\b|\b[Oo]wned by\b|@\w+|\b(?:[A-Z][\w&]*\s){0,3}(?:[Tt]eam|[Ss]quad|[Gg]uild|[Dd]epartment|[Oo]rg)\b|"
    r"\b(?:PM|EM|DRI|TPM|PMM)\b|\b(?:[Pp]roduct|[Ee]ngineering|[Mm]arketing|[Ff]inance|[Ss]ales|[Oo]perations|[Oo]ps|"
    r"[Dd]ata|[Aa]nalytics|[Gg]rowth|[Ss]upport|[Ll]egal|[Dd]esign|[Pp]ricing|[Pp]latform|CRM|[Ll]ifecycle) (?:lead|manager|team|director|owner)s?\b|"
    r"\b[A-Z][a-z]+ (?:\([A-Z][\w ]+\) )?(?:to|will|owns|should|leads?)\b(?! be\b)|\b(?:assignee|responsible|accountable)\b|"
    r"\((?:[A-Z][a-z]+(?: [A-Z]\.?)?|[A-Z][\w ]+ [Tt]eam)\))"
)
OWNER_STOP = rx(r"^(we|this|that|it|they|these|those|the|our|there|next|then|also|and|but|you|i|plan|need|how|what|who|when|why|if|one|each|all)$")
TIMING = rx(
    r"\b(by (?:end of |the end of )?(?:q[1-4]|h[12]|monday|tuesday|wednesday|thursday|friday|january|february|march|april|may|june|"
    r"july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|next (?:week|month|quarter|sprint)|"
    r"eow|eom|eoq|\d{1,2}/\d{1,2}|\d{4}-\d{2}-\d{2}|the \d+(?:st|nd|rd|th))|within (?:\d+|one|two|three|four|six) (?:days|weeks|months|sprints)|"
    r"next (?:week|sprint|month|quarter)|this (?:week|sprint|month|quarter)|\bq[1-4](?: \d{4})?\b|deadline|timeline|due (?:date|by)|"
    r"\d{4}-\d{2}-\d{2}|(?:january|february|march|april|june|july|august|september|october|november|december) \d{1,2}|"
    r"in (?:\d+|one|two|three|four|six) (?:weeks|days|months)|immediately|starting (?:on|in|next)|"
    r"(?:by|from|on|before|until|starting) \d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)\b"
)
VAGUE_ACTION = rx(
    r"\b(consider\w*|look(?:ing)? into|explor(?:e|ing)|monitor\w*|keep(?:ing)? an eye|think(?:ing)? about|investigate further|"
    r"further investigat\w*|may want to|might want to|could (?:try|consider|look)|revisit\w*|continue to (?:monitor|watch|track)|"
    r"worth (?:exploring|considering|looking)|be mindful|pay attention|leverage|optimi[sz]e (?:the|our) \w+|improve (?:the|our) \w+|"
    r"do more|dig deeper|keep (?:tracking|watching))\b"
)
INTERPRET = rx(
    r"\b(this (?:means|suggests|indicates|shows|implies|matters)|which (?:means|suggests|indicates|implies|is why)|suggest(?:s|ing)|"
    r"indicat(?:es|ing)|impl(?:ies|y|ication\w*)|because|so (?:we|the|that|this)|therefore|as a result|in other words|"
    r"explain\w*|key (?:takeaway|point|finding)|takeaway|matters|importantly|notably|we recommend|the upshot|"
    r"translat\w+ (?:to|into)|worth|meaning (?:that|we)|for the business|so what|impact on)\b"
)
PLACEHOLDER = re.compile(
    r"\b(?:TODO|TBD|TBC|FIXME|XXX)\b|\bXX+(?:\.X+)?\s?%|\bX+\.?X*%|\[(?:insert|add|link|chart|figure|graph|table|citation|source|"
    r"placeholder|tk|todo|tbd|name|date|number|owner|fill)[^\]\n]{0,40}\](?!\()|\?\?\?+|[Ll]orem ipsum|<(?:insert|placeholder|tbd|todo)[^>\n]{0,30}>|"
    r"\{\{[^}\n]{0,40}\}\}|[$€£]X+\b(?![\\^_{}$]|\s*\\)|\bN\.NN?\b|\bNN%",  # "$X\to Y$", "$X$": inline math, not a price
)
SLIDE_MARKER = rx(r"^\W*(slide|page)\s*\d+\b|\[slide\s*\d+\]|\bspeaker notes?\b|\bnext slide\b|\bon this slide\b|\bthis slide\b", I | re.MULTILINE)
HANDOFF_STRONG = rx(
    r"\b(as (?:we )?discussed (?:in|at|during|with|on|yesterday|last)|as we talked about|per (?:our|the|my) (?:conversation|chat|discussion|meeting|sync|call|slack|thread)|"
    r"as mentioned (?:in|during|at) (?:the|our|yesterday's|last week's) (?:meeting|sync|call|standup|review)|"
    r"see (?:the|my|our) (?:dashboard|notebook|slack|thread|earlier doc|other doc|spreadsheet)(?! (?:at|linked|here|https?))|"
    r"(?:the|our) usual (?:\w+ )?(?:definition|filters?|query|approach|way|caveats|exclusions|adjustments?)|you know (?:the|which|what)|"
    r"same as (?:last time|before|usual)|as (?:usual|always)|(?:last|this) week's (?:meeting|sync|discussion)|ping me|"
    r"ask \w+ (?:for|about) (?:details|the)|you'll remember|as you (?:know|recall)|the thing we|the issue from|"
    r"as in the (?:Q[1-4]|last|previous|earlier|prior) (?:\w+ ){0,2}(?:work|analysis|project|study|review))\b"
)
TYPO = rx(
    r"\b(teh|recieve\w*|seperat\w*|occured|definately|acheiv\w*|untill|wich|thier|accross|significiant|statisitc\w*|"
    r"analsyis|anaylsis|begining|beleive|calender|commited|enviroment|existance|goverment|independant|neccessar\w*|"
    r"noticable|occurence|persue|prefered|publically|reccomend\w*|recomend\w*|refered|relevent|succesful\w*|tommorow|"
    r"wierd|alot|retension|convertion|custmer\w*|revnue|perfomance|experment\w*)\b"
)
REPEATED_WORD = re.compile(r"\b([A-Za-z]{2,})\s+\1\b", re.IGNORECASE)
BROKEN_REF = rx(r"error! reference source not found|\]\(\s*\)|\[\s*\]\(|figure \?\?|table \?\?|\(see (?:figure|table|section)\s*\)")
UNCAPTIONED_ALT = rx(r"^(?:|image|img|chart|graph|screenshot|figure|fig|plot|picture|pic|untitled|image\d*|screen shot.*)$")

# Acronyms a general business reader knows.
COMMON_ACRONYMS = frozenset(
    """TL TLDR DR US USA UK EU UN USD EUR GBP CEO CFO CTO COO CMO CPO VP SVP EVP HR IT PR OK AM PM ID IDS FAQ PDF URL URLS
    Q1 Q2 Q3 Q4 H1 H2 FY YOY MOM WOW QOQ YTD MTD AI TV NYC LA SF EOD EOW EOM ETA ASAP FYI AND OR NOT THE TODO TBD TBC FIXME
    NA KPI KPIS ROI B2B B2C MVP GDP CSV OKR OKRS NB PS UI UX APP APPS iOS IOS NOTE WARNING IMPORTANT TLDR SUMMARY USP SKU SKUS
    LLC INC LTD CO API APIS SQL ML PhD PHD AB A B VS MB GB TB KB HTML JSON XML SMS GPS FAQ DIY MIT CA NY TX UAE APAC EMEA LATAM
    NA NAM II III IV VI VII VIII IX XI XII N I""".split()
)
# Analytics acronyms a data-science or technical reader knows.
DS_ACRONYMS = frozenset(
    """CI CIS SE SD MDE AUC ROC RMSE MAE MAPE OLS GLM DID ATE ATT ITT CATE LATE CUPED SHAP LIME KPI ARPU ARPPU AOV GMV LTV CLV
    CAC CTR CVR NPS CSAT DAU MAU WAU SQL ETL A/B AB NDCG MRR MAP F1 PR IV RDD BSTS ARIMA LSTM XGB GBM KNN PCA SVM NLP LLM
    AIC BIC MLE MCMC HTE ROAS CPA CPC CPM SLA P50 P90 P95 P99 QA DS ML AI OOS OOT TTEST IQR MOM YOY""".split()
)
DS_JARGON = rx(
    r"\b(heteroskedastic\w*|heteroscedastic\w*|stationarity|propensity score\w*|instrumental variables?|bootstrap\w*|bayesian|"
    r"posterior|covariates?|stratifi\w*|winsori[sz]\w*|multicollinear\w*|regulari[sz]ation|hyperparameters?|logit|probit|"
    r"fixed effects|random effects|bonferroni|heterogeneous treatment effects?|sequential testing|p-hacking|power analysis|"
    r"variance reduction|confidence intervals?|standard errors?|p-values?|null hypothesis|coefficients?|regressors?|"
    r"endogene\w*|autocorrelat\w*|residuals?|overfit\w*|cross-validat\w*|intent[- ]to[- ]treat|uplift model\w*|"
    r"difference[- ]in[- ]differences|synthetic control|t-test|chi[- ]squared?|kolmogorov\w*|mann[- ]whitney|"
    r"log[- ]transform\w*|elasticit\w*|interaction terms?|clustered standard errors|delta method)\b"
)

# a table of contents (a Confluence toc macro reads "Contents: A · B"): the page has intentional structure
TOC_LINE = re.compile(r"(?im)^[\s*_>]*(?:contents|table of contents|on this page)[*_]*\s*:\s*\S[^\n]*(?:·|\||,)|"
                      r"^#{1,6}\s*(?:contents|table of contents)\s*$")


# ------------------------------------------------------------------ readings added for real write-ups

# a result stated as (not) statistically significant
SIGNIFICANCE_WORD = rx(r"\b(statistically (?:in)?significant|(?:not |in)?significant(?:ly)? (?:different|difference|effect|"
                       r"increase|decrease|lift|improvement|change|impact)|significance)\b")
# one sentence that says what the analysis does not show or where it may not hold
STRONG_LIMITATION = rx(
    r"\b((?:might|may|could|does|do|would) (?:or (?:might|may) )?not (?:hold|generali[sz]e|apply|transfer|carry over)|"
    r"might or not hold|(?:i|we) (?:have|had|did) not (?:tried|try|attempt\w*|control\w*|account\w*|measured?|tested?|"
    r"separated?|isolated?|looked at|adjusted?)|(?:cannot|can't|could not|couldn't) (?:separate|isolate|disentangle|"
    r"distinguish|rule out|attribute)|(?:is|are) (?:a |an )?(?:simplification|approximation|rough estimate)s?|"
    r"made (?:a lot of |many )?simplifications|(?:not|isn't|is not) representative|out of scope|"
    r"(?:this|the|these|our) (?:conclusions?|results?|findings?|estimates?|numbers?) (?:may|might|could) (?:not|change|differ|be)|"
    r"(?:assumption|premise) (?:probably |likely |may |might )?(?:wouldn'?t|would not|does not|doesn'?t|may not|might not) hold|"
    r"wishful|(?:does|do) not (?:account for|capture|tell us|prove|cover)|confound\w*|"
    r"not (?:the same as|necessarily) (?:useful|better|causal)|correlation(?:, | is )not causation|"
    r"more (?:analysis|research|data) (?:is|would be) needed to (?:confirm|separate|know)|"
    r"not just (?:some|any|more) \w+|(?:useful|meaningful|correct|relevant) \w+, not (?:just|only|merely)|"
    r"(?:is|are) not (?:directly )?comparable|(?:is|are|was|were) not (?:in|part of) the data(?: ?set)?|"
    r"not (?:included|captured|recorded|measured|available) in (?:the|our|this) data|"
    r"(?:should|must|can) not be (?:used|read|interpreted|taken|applied|generali[sz]ed|extrapolated) (?:to|as|for|beyond)|"
    r"not what would happen|(?:do|does|did) not (?:test|measure|observe) (?:a|the|any) (?:change|cause)|"
    r"(?:these|this|they|it) (?:are|is) (?:only )?(?:an? )?associations?|associational|may (?:simply|just|partly) (?:be|reflect))\b")
# a label or panel that introduces a caveat
CAVEAT_LABEL = rx(r"^\W*(?:caveats?|limitations?|note|warning|health warning|important)\s*[:.—–-]\s*\S")
CAVEAT_PANEL = re.compile(r"(?im)^\s*>\s*(?:\*\*|__)?\s*(?:\[!(?:caution|warning|important|note)\]|caveats?|limitations?)\b")
# a decision or recommendation stated as such
DECISION = rx(
    r"\b(final decision|(?:the )?decision(?: is|:| was)|(?:we|i) (?:decided|recommend|propose|suggest)|"
    r"(?:is|are|was) (?:not )?(?:supported|warranted|justified|recommended)|(?:do|did) not ship|don'?t ship|"
    r"should (?:be )?(?:considered|used|adopted|the first option|kept|rolled out|shipped|stopped)|"
    r"(?:we|they|you) should(?! (?:note|point out|add|mention|stress|remember|bear in mind|keep in mind|be careful|see|expect))|"
    r"(?:ship|roll out|launch|keep|stop|revert) (?:it|the \w+|this)\b)"
)
# an imperative piece of advice, as closing sections give it ("Choose your models wisely.")
IMPERATIVE_ADVICE = rx(
    r"^\W*(?:always |never |first,? |then |also )?(choose|use|pick|prefer|avoid|start|stop|keep|run|test|try|go and try|consider|"
    r"move|switch|adopt|ship|roll out|invest|drop|replace|check|measure|monitor|plan|build)\b"
)
# words that look like a recommendation but are not one: a recommender system, a walk-through's "let's"
NOT_A_RECOMMENDATION = rx(
    r"\b(recommendation (?:system|engine|model|algorithm|list)s?|recommender\w*|(?:system|model|engine|algorithm|it) "
    r"(?:that |which )?recommends|recommended offers?|let'?s (?:begin|start|look|take|see|do|plot|compute|calculate|use|try|"
    r"dig|check|give|first|now|get|go|move|turn|compare|run|consider|assume|say|imagine|suppose)|should be noted)\b"
)
# a sentence that frames the decision the document feeds ("This readout is for the go/no-go decision on
# launching ...", "we need to decide whether to ..."): it asks for a recommendation, it is not one
DECISION_FRAMING = rx(
    r"\b((?:is|are|was) for (?:the|a|our) (?:\w+ ){0,2}decision|(?:to|will|must|need to|needs to|have to) decide (?:whether|if|on|between)|"
    r"(?:the|a|our) (?:\w+ )?decision (?:on|about|whether|for)|go/no-go (?:decision|meeting|call|review))\b")
# a question asked with "should" ("we were asked whether we should replace ..."): framing, not a recommendation
QUESTION_SHOULD = rx(r"\b(?:whether|if)\s+(?:or not\s+)?(?:we|they|you|it|the \w+)\s+should\b|\bshould (?:we|they|i)\b[^.]*\?")
# a caveat on how to read a result, phrased with "should": "it should not be used to size a price change"
READING_CAVEAT = rx(r"\b(?:should|must|can) not be (?:used|read|interpreted|taken|applied|generali[sz]ed|extrapolated|relied on)\b|"
                    r"\bshould be (?:read|interpreted|taken) (?:with|as)\b")
# a follow-up a write-up names ("It would be interesting to see whether ...", "could be worth testing"): a next step,
# hedged as such a step usually is
FOLLOW_UP = rx(
    r"\b(it would be (?:interesting|useful|worth\w*|good) to|(?:would|could|might) be worth (?:\w+ing)|worth (?:testing|checking|"
    r"exploring|looking into|investigating|repeating)|a (?:natural |possible |good )?next step|next,? (?:we|i) (?:will|would|plan|could)|"
    r"(?:a |the )?follow-up (?:analysis|test|study|experiment) (?:could|would|will|should)|further (?:work|analysis|research) "
    r"(?:could|would|will|should)|in a future (?:experiment|test|analysis|post)|"
    r"an? (?:\w+ )?(?:test|experiment|trial|study|analysis) (?:that|which) [^.]{0,80}\bwould (?:answer|tell|show|settle|measure))\b")
# reasoning told in the past ("we suspected that we should first try"): not a recommendation
PAST_REASONING = rx(r"\b(?:we|i|they) (?:suspected|thought|believed|felt|hypothesi[sz]ed|assumed|expected|wondered)\b")
# a recommendation that is an action for the author's team, not advice to any reader
TEAM_ACTION = rx(r"\b(we|our|us|team|teams|owners?|company|business|leadership|product|marketing|finance|sales|ops|"
                 r"recommend\w*|propos\w*|proceed\w*|decid\w*|pending|roll(?:ing)? ?out|ship|launch\w*)\b")


# "should" as an expectation about a quantity or a variable, not advice: "so it should affect the Lead Time",
# "the new estimate should go to zero", "the estimate shouldn't change by much"
EXPECTATION_SHOULD = rx(
    r"\b(?:it|this|that|which|these|those|there|(?:the|our|its|their|new|causal) (?:\w+ )?(?:estimates?|effects?|results?|values?|"
    r"numbers?|variables?))\s+should(?:n'?t| not)?\s+(?:(?:also|only|still|then|now) )?(?:affect|influence|lead|go|cause|change|"
    r"increase|decrease|drop|rise|fall|remain|stay|vary|matter|hold|be (?:close|near|around|similar|zero|unchanged|the same|"
    r"small|large|higher|lower|positive|negative))\b|"
    # a mechanism expected of any variable: "a longer lead time should affect the cancellations"
    r"\b(?!(?:we|you|i|they|team|management|everyone|teams)\b)\w+\s+should(?:n'?t| not)?\s+(?:also )?(?:affect|influence|"
    r"cause|lead to|go to (?:zero|0))\b"
)


def should_is_expectation(text: str) -> bool:
    """Every "should" of the sentence states what a quantity is expected to do, and nothing in it
    recommends or proposes."""
    n = len(re.findall(r"\bshould(?:n'?t)?\b", text, re.I))
    return bool(n) and n == len(EXPECTATION_SHOULD.findall(text)) and not re.search(
        r"\b(?:recommend|propos|next step|we should|you should)", text, re.I)
