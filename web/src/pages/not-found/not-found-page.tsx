import { Link } from "wouter";
import { usePageTitle } from "../../components/page-title.ts";

export function NotFoundPage() {
  usePageTitle("Page not found");
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <Link href="/">Go to the front page</Link> or{" "}
        <Link href="/marketplace">browse the marketplace</Link>.
      </p>
    </>
  );
}
