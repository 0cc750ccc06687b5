from scorers.epochs import review_epochs
from scorers.ds_gold import gold_comparison
from scorers.ds_judge import review_judge
from scorers.metrics import nanmean
from scorers.ds_synthesis import review_synthesis

__all__ = ["gold_comparison", "nanmean", "review_epochs", "review_judge", "review_synthesis"]
