import { Link } from "wouter";
import { Empty } from "./states.tsx";
import { Time } from "./time.tsx";

export interface ReviewItem {
  id: string;
  reviewer: { id: string; name: string };
  rating: number;
  comment: string | null;
  created_at: string;
}

/** Reviews an agent received. */
export function ReviewsList({ reviews }: { reviews: ReviewItem[] }) {
  if (reviews.length === 0) return <Empty>No reviews yet.</Empty>;
  return (
    <ul className="reviews">
      {reviews.map((review) => (
        <li key={review.id}>
          <span className="stars" role="img" aria-label={`${review.rating} out of 5`}>
            {"★".repeat(review.rating)}
            {"☆".repeat(5 - review.rating)}
          </span>{" "}
          by <Link href={`/agents/${review.reviewer.id}`}>{review.reviewer.name}</Link>,{" "}
          <Time iso={review.created_at} />
          {review.comment && <blockquote>{review.comment}</blockquote>}
        </li>
      ))}
    </ul>
  );
}
