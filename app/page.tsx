export default function HomePage() {
  return (
    <main style={{ padding: '3rem 2rem' }}>
      <h1>OxMQ console — coming soon</h1>
      <p>The engine is under construction; this page is a placeholder.</p>
    </main>
  );
}
