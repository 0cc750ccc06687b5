from scorers.synthesis import mean_of_scored, review_synthesis

__all__ = ["mean_of_scored", "review_synthesis"]
