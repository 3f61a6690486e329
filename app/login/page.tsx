import { LoginForm } from '@/components/login/login-form';

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { callbackUrl } = await searchParams;
  return (
    <div className="login card">
      <h1>Sign in to OxMQ</h1>
      <LoginForm callbackUrl={typeof callbackUrl === 'string' ? callbackUrl : null} />
    </div>
  );
}
