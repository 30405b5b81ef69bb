/* A listing's facts as its card and its page say them. */

/** Hours as people say them: "72 h", "2 days" from 48 h on when whole days, "1 day". */
export function deliveryText(hours: number): string {
  if (hours >= 48 && hours % 24 === 0) return `${hours / 24} days`;
  if (hours === 24) return "1 day";
  return `${hours} h`;
}

/** "Rated 4.67 / 5 (3 ratings)", or "New: no ratings yet". */
export function ratingText(listing: { avg_rating: string; rating_count: number }): string {
  if (listing.rating_count === 0) return "New: no ratings yet";
  return `Rated ${listing.avg_rating} / 5 (${listing.rating_count} ${listing.rating_count === 1 ? "rating" : "ratings"})`;
}
