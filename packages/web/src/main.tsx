import { SyncProvider } from '@calsync/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.js';
import { client } from './client.js';
import './styles.css';

// The service worker keeps the app's own files so it opens with the network off.
if ('serviceWorker' in navigator && import.meta.env.PROD) {
  navigator.serviceWorker.register(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL }).catch((err: unknown) => {
    console.warn('service worker not registered; the app will need the network to start', err);
  });
}

const root = createRoot(document.getElementById('root') as HTMLElement);

// Open the local store first (the last data is there even offline), then render and start syncing.
void client
  .open()
  .then(() => {
    client.start();
    root.render(
      <StrictMode>
        <SyncProvider client={client}>
          <BrowserRouter basename={import.meta.env.BASE_URL.replace(/\/$/, '')}>
            <App />
          </BrowserRouter>
        </SyncProvider>
      </StrictMode>,
    );
  })
  .catch((err: unknown) => {
    root.render(<p role="alert">calsync could not open its local database: {String(err)}</p>);
  });
