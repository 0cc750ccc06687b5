from scorers.epochs import review_epochs
from scorers.gold import gold_comparison
from scorers.judge import review_judge
from scorers.metrics import nanmean
from scorers.synthesis import review_synthesis

__all__ = ["gold_comparison", "nanmean", "review_epochs", "review_judge", "review_synthesis"]
